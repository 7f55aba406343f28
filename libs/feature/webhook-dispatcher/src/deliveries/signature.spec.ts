import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, standardWebhooksKey } from '../subscriptions/webhook-secret';
import { deliveryHeaders } from './delivery-headers';
import { signatureHeader, standardWebhooksSignatureHeader } from './signature';

describe('X-Svc-Signature (spec, Events → Webhooks rule 2)', () => {
  it('is v1=<hex HMAC-SHA256 over "<timestamp>.<raw body>">, matching openssl', () => {
    // printf '1700000000.{"event":"webhook.test"}' | openssl dgst -sha256 -hmac whsec_test
    expect(signatureHeader(['whsec_test'], 1_700_000_000, '{"event":"webhook.test"}')).toBe(
      'v1=1d83e338c8b0156315e4b02e94f96d83e4260098aa05dead2a856d36245f342f',
    );
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

describe('webhook-signature (Standard Webhooks)', () => {
  const body = '{"event":"webhook.test"}';
  const now = Math.floor(Date.now() / 1000);

  it('mints secrets the standardwebhooks library accepts as whsec_ base64 of 32 bytes', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(standardWebhooksKey(secret)).toHaveLength(32);
    expect(() => new Webhook(secret)).not.toThrow();
  });

  it('is v1,<base64 HMAC-SHA256 over "<id>.<timestamp>.<body>">, verified by the standardwebhooks package', () => {
    const secret = newWebhookSecret();
    const signature = standardWebhooksSignatureHeader([secret], 'evt_1', now, body);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(
      new Webhook(secret).verify(body, { 'webhook-id': 'evt_1', 'webhook-timestamp': String(now), 'webhook-signature': signature! }),
    ).toEqual({ event: 'webhook.test' });
    expect(() =>
      new Webhook(secret).verify(body, { 'webhook-id': 'evt_2', 'webhook-timestamp': String(now), 'webhook-signature': signature! }),
    ).toThrow('No matching signature');
  });

  it('signs with each secret of a rotation overlap, new first, and skips secrets minted before the base64 form', () => {
    const [fresh, previous] = [newWebhookSecret(), newWebhookSecret()];
    const legacy = `whsec_${'a1B2'.repeat(10)}xyz`;
    expect(standardWebhooksKey(legacy)).toBeUndefined();
    const signature = standardWebhooksSignatureHeader([fresh, previous, legacy], 'evt_1', now, body)!;
    expect(signature.split(' ')).toHaveLength(2);
    expect(signature.split(' ')[0]).toBe(standardWebhooksSignatureHeader([fresh], 'evt_1', now, body));
    for (const secret of [fresh, previous]) {
      expect(
        new Webhook(secret).verify(body, { 'webhook-id': 'evt_1', 'webhook-timestamp': String(now), 'webhook-signature': signature }),
      ).toEqual({ event: 'webhook.test' });
    }
    expect(standardWebhooksSignatureHeader([legacy], 'evt_1', now, body)).toBeUndefined();
  });

  it('adds the webhook-* headers only when the subscription opted in, keeping the X-Svc-* set', () => {
    const secret = newWebhookSecret();
    const input = { eventId: 'evt_9', eventType: 'webhook.test', secrets: [secret], timestampSec: now, payload: body };
    const svcOnly = deliveryHeaders({ ...input, signatureFormats: ['svc'] });
    expect(Object.keys(svcOnly).filter((name) => name.startsWith('webhook-'))).toEqual([]);
    const both = deliveryHeaders({ ...input, signatureFormats: ['svc', 'standard_webhooks'] });
    expect(both).toMatchObject({
      'x-svc-event-id': 'evt_9',
      'x-svc-timestamp': String(now),
      'webhook-id': 'evt_9',
      'webhook-timestamp': String(now),
    });
    expect(both['x-svc-signature']).toBe(svcOnly['x-svc-signature']);
    expect(new Webhook(secret).verify(body, both)).toEqual({ event: 'webhook.test' });
  });
});
