import { createHmac } from 'node:crypto';
import { signatureHeader } from './signature';

describe('X-Svc-Signature (spec, Events → Webhooks rule 2)', () => {
  it('is v1=<hex HMAC-SHA256 over "<timestamp>.<raw body>">, matching openssl', () => {
    // printf '1700000000.{"event":"webhook.test"}' | openssl dgst -sha256 -hmac whsec_test
    expect(signatureHeader(['whsec_test'], 1_700_000_000, '{"event":"webhook.test"}')).toBe('v1=1d83e338c8b0156315e4b02e94f96d83e4260098aa05dead2a856d36245f342f');
  });

  it('keys the HMAC with the UTF-8 bytes of the secret and signs the UTF-8 bytes of the body', () => {
    const expected = createHmac('sha256', Buffer.from('clé', 'utf8')).update(Buffer.from('7.{"name":"Zoë"}', 'utf8')).digest('hex');
    expect(signatureHeader(['clé'], 7, '{"name":"Zoë"}')).toBe(`v1=${expected}`);
  });

  it('sends nothing without a secret', () => {
    expect(signatureHeader([], 42, '{}')).toBe('');
  });

  it('carries both signatures, new first, space separated, during a rotation overlap', () => {
    const body = '{"a":1}';
    const one = (secret: string) => createHmac('sha256', secret).update(`42.${body}`).digest('hex');
    expect(signatureHeader(['whsec_new', 'whsec_old'], 42, body)).toBe(`v1=${one('whsec_new')} v1=${one('whsec_old')}`);
  });
});
