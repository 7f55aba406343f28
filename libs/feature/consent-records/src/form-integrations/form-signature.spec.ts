import { createHmac } from 'node:crypto';
import { typeformSignature, typeformSignatureMatches } from './form-signature';

/** Typeform's signature: `sha256=` + base64 (not hex) of HMAC-SHA256 over the raw body bytes. */
describe('Typeform signature', () => {
  const body = Buffer.from('{"event_id":"LtWXD3crgy","event_type":"form_response"}');

  it('is sha256= and the base64 HMAC of the exact bytes', () => {
    expect(typeformSignature('abc123', body)).toBe(`sha256=${createHmac('sha256', 'abc123').update(body).digest('base64')}`);
    expect(typeformSignatureMatches('abc123', body, typeformSignature('abc123', body))).toBe(true);
  });

  it('does not match another secret, another body, the hex form, or a value of another length', () => {
    const good = typeformSignature('abc123', body);
    expect(typeformSignatureMatches('abc124', body, good)).toBe(false);
    expect(typeformSignatureMatches('abc123', Buffer.concat([body, Buffer.from(' ')]), good)).toBe(false);
    expect(typeformSignatureMatches('abc123', body, `sha256=${createHmac('sha256', 'abc123').update(body).digest('hex')}`)).toBe(false);
    expect(typeformSignatureMatches('abc123', body, good.slice(7))).toBe(false);
    expect(typeformSignatureMatches('abc123', body, '')).toBe(false);
  });
});
