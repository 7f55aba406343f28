import { createHmac } from 'node:crypto';
import { WebhookVerificationError, verifyWebhook } from './index';

/** Independent signer: the documented construction, written out with node:crypto. */
function sign(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

function reasonOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
  return 'verified';
}

describe('verifyWebhook (spec: Events → Webhooks rule 2; Limits: 5-minute tolerance, 1-day overlap)', () => {
  const secret = 'whsec_currentcurrentcurrentcurrent';
  const previous = 'whsec_previouspreviouspreviousprev';
  const now = new Date('2026-11-22T12:00:00Z');
  const ts = Math.floor(now.getTime() / 1000);
  const body = '{"event":"consent.granted","id":"e1","data":{"flow_id":"flw_us_x"}}';
  const headers = (signature: string, timestamp: string | number = ts) => ({
    'x-svc-signature': signature,
    'x-svc-timestamp': String(timestamp),
    'x-svc-event-id': 'e1',
    'x-svc-event-type': 'consent.granted',
  });

  it('matches a fixed test vector (HMAC-SHA256 of "<timestamp>.<body>" keyed with the whole secret)', () => {
    // Computed with `printf '1700000000.{"event":"webhook.test"}' | openssl dgst -sha256 -hmac whsec_test`.
    const vector = '1d83e338c8b0156315e4b02e94f96d83e4260098aa05dead2a856d36245f342f';
    const result = verifyWebhook({
      rawBody: '{"event":"webhook.test"}',
      headers: { 'X-Svc-Signature': `v1=${vector}`, 'X-Svc-Timestamp': '1700000000' },
      secrets: ['whsec_test'],
      now: new Date(1_700_000_000_000),
    });
    expect(result.payload).toEqual({ event: 'webhook.test' });
  });

  it('verifies a signature made independently and returns the parsed payload and ids', () => {
    const result = verifyWebhook({ rawBody: body, headers: headers(`v1=${sign(secret, ts, body)}`), secrets: [secret], now });
    expect(result).toEqual({ eventId: 'e1', eventType: 'consent.granted', timestamp: new Date(ts * 1000), payload: JSON.parse(body) });
  });

  it('accepts raw bytes and a fetch Headers object', () => {
    const h = new Headers(headers(`v1=${sign(secret, ts, body)}`));
    expect(verifyWebhook({ rawBody: Buffer.from(body), headers: h, secrets: [secret], now }).eventId).toBe('e1');
  });

  it('accepts either secret during the rotation overlap, whichever entry of the header matches', () => {
    const both = `v1=${sign(secret, ts, body)} v1=${sign(previous, ts, body)}`;
    expect(reasonOf(() => verifyWebhook({ rawBody: body, headers: headers(both), secrets: [secret], now }))).toBe('verified');
    expect(reasonOf(() => verifyWebhook({ rawBody: body, headers: headers(both), secrets: [previous], now }))).toBe('verified');
    const oldOnly = `v1=${sign(previous, ts, body)}`;
    expect(reasonOf(() => verifyWebhook({ rawBody: body, headers: headers(oldOnly), secrets: [secret, previous], now }))).toBe('verified');
  });

  it('refuses a signature by another secret', () => {
    expect(
      reasonOf(() => verifyWebhook({ rawBody: body, headers: headers(`v1=${sign(previous, ts, body)}`), secrets: [secret], now })),
    ).toBe('signature_mismatch');
  });

  it('refuses a tampered body and a tampered timestamp', () => {
    const signature = `v1=${sign(secret, ts, body)}`;
    expect(reasonOf(() => verifyWebhook({ rawBody: body.replace('e1', 'e2'), headers: headers(signature), secrets: [secret], now }))).toBe(
      'signature_mismatch',
    );
    expect(reasonOf(() => verifyWebhook({ rawBody: body, headers: headers(signature, ts - 1), secrets: [secret], now }))).toBe(
      'signature_mismatch',
    );
  });

  it('refuses timestamps older than 5 minutes, accepts exactly 5 minutes, refuses far-future ones', () => {
    const at = (t: number) =>
      reasonOf(() => verifyWebhook({ rawBody: body, headers: headers(`v1=${sign(secret, t, body)}`, t), secrets: [secret], now }));
    expect(at(ts - 300)).toBe('verified');
    expect(at(ts - 301)).toBe('timestamp_outside_tolerance');
    expect(at(ts + 301)).toBe('timestamp_outside_tolerance');
  });

  it('honours a custom tolerance', () => {
    const t = ts - 60;
    const run = (toleranceSec: number) =>
      reasonOf(() =>
        verifyWebhook({ rawBody: body, headers: headers(`v1=${sign(secret, t, body)}`, t), secrets: [secret], now, toleranceSec }),
      );
    expect(run(59)).toBe('timestamp_outside_tolerance');
    expect(run(60)).toBe('verified');
  });

  it.each([
    ['no signature header', { 'x-svc-timestamp': String(ts) }, 'signature_missing'],
    ['a signature of another scheme only', { 'x-svc-timestamp': String(ts), 'x-svc-signature': 'v0=abcd' }, 'signature_missing'],
    ['a truncated hex signature', { 'x-svc-timestamp': String(ts), 'x-svc-signature': 'v1=abcd' }, 'signature_missing'],
    ['no timestamp', { 'x-svc-signature': 'v1=' + 'a'.repeat(64) }, 'timestamp_invalid'],
    ['a non-numeric timestamp', { 'x-svc-signature': 'v1=' + 'a'.repeat(64), 'x-svc-timestamp': '12:00' }, 'timestamp_invalid'],
  ])('refuses %s', (_case, h, reason) => {
    expect(reasonOf(() => verifyWebhook({ rawBody: body, headers: h, secrets: [secret], now }))).toBe(reason);
  });

  it('refuses to run without a secret or with a negative tolerance', () => {
    const h = headers(`v1=${sign(secret, ts, body)}`);
    expect(reasonOf(() => verifyWebhook({ rawBody: body, headers: h, secrets: [], now }))).toBe('options_invalid');
    expect(reasonOf(() => verifyWebhook({ rawBody: body, headers: h, secrets: [''], now }))).toBe('options_invalid');
    expect(reasonOf(() => verifyWebhook({ rawBody: body, headers: h, secrets: [secret], now, toleranceSec: -1 }))).toBe('options_invalid');
  });
});
