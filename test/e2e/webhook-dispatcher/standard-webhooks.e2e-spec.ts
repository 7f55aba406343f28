import type { IncomingHttpHeaders } from 'node:http';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { verifyWebhook } from '@svc/sdk-webhooks';
import { http, waitFor, LoopbackReceiver, type ReceivedWebhook } from '@svc/testing';
import { Webhook } from 'standardwebhooks';
import { startRegions, type TestRegions } from '../support/regions';

jest.setTimeout(120_000);

function headerRecord(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(' ') : String(value)]));
}

/**
 * Standard Webhooks side by side with the spec's X-Svc-* headers: a subscription that opts in gets
 * deliveries the `standardwebhooks` package verifies, while @svc/sdk-webhooks still verifies the
 * X-Svc-Signature of the very same request.
 */
describe('Standard Webhooks headers through the us router', () => {
  let stack: TestRegions;
  let base: string;
  let auth: Record<string, string>;
  const receiver = new LoopbackReceiver();

  beforeAll(async () => {
    await receiver.start();
    stack = await startRegions('std_webhooks', { regions: ['us'] });
    const app = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'e2e-standard-webhooks', environment: 'development' }));
    auth = { authorization: `Bearer ${app.apiToken}` };
    base = `${stack.url.us}/api/v1/applications/${app.application.id}/webhook_subscriptions`;
  });
  afterAll(async () => {
    await stack?.close();
    await receiver.close();
  });

  async function testDelivery(id: string, path: string): Promise<ReceivedWebhook> {
    const before = receiver.on(path).length;
    const queued = await http('POST', `${base}/${id}/test`, { headers: auth });
    expect(queued.status).toBe(202);
    return waitFor(() => receiver.on(path)[before]);
  }

  it('sends webhook-id, webhook-timestamp and webhook-signature the standardwebhooks package verifies, next to a valid X-Svc-Signature', async () => {
    const created = await http('POST', base, {
      headers: auth,
      json: { url: receiver.url('/both'), events: ['consent.granted'], signature_formats: ['standard_webhooks', 'svc'] },
    });
    expect(created.status).toBe(201);
    expect(created.body.signature_formats).toEqual(['svc', 'standard_webhooks']);
    const secret = created.body.secret as string;
    const id = created.body.id as string;

    const request = await testDelivery(id, '/both');
    const headers = headerRecord(request.headers);
    expect(headers['webhook-id']).toBe(headers['x-svc-event-id']);
    expect(headers['webhook-timestamp']).toBe(headers['x-svc-timestamp']);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(request.rawBody, headers)).toMatchObject({ event: 'webhook.test' });
    expect(verifyWebhook({ rawBody: request.rawBody, headers: request.headers, secrets: [secret] }).eventType).toBe('webhook.test');
    // The event id is signed: a receiver given another webhook-id refuses the request.
    expect(() => new Webhook(secret).verify(request.rawBody, { ...headers, 'webhook-id': 'evt_forged' })).toThrow('No matching signature');

    // Rotation: both secrets sign during the overlap, in both formats.
    const rotated = await http('POST', `${base}/${id}/rotate_secret`, { headers: auth });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    const overlap = await testDelivery(id, '/both');
    const overlapHeaders = headerRecord(overlap.headers);
    expect(overlapHeaders['webhook-signature']!.split(' ')).toEqual([expect.stringMatching(/^v1,/), expect.stringMatching(/^v1,/)]);
    for (const key of [fresh, secret]) {
      expect(new Webhook(key).verify(overlap.rawBody, overlapHeaders)).toMatchObject({ event: 'webhook.test' });
      expect(verifyWebhook({ rawBody: overlap.rawBody, headers: overlap.headers, secrets: [key] }).eventType).toBe('webhook.test');
    }
  });

  it('opts in and out with PATCH, refusing null and formats without svc', async () => {
    const created = await http('POST', base, { headers: auth, json: { url: receiver.url('/toggle'), events: ['consent.granted'] } });
    expect(created.status).toBe(201);
    expect(created.body.signature_formats).toEqual(['svc']);
    const secret = created.body.secret as string;
    const id = created.body.id as string;
    const plain = await testDelivery(id, '/toggle');
    expect(Object.keys(plain.headers).filter((name) => name.startsWith('webhook-'))).toEqual([]);

    for (const [body, status, code] of [
      [{ signature_formats: null }, 400, 'invalid_request'],
      [{}, 400, 'invalid_request'],
      [{ signature_formats: ['standard_webhooks'] }, 422, 'validation_failed'],
    ] as const) {
      const refused = await http('PATCH', `${base}/${id}`, { headers: auth, json: body });
      expect([JSON.stringify(body), refused.status, refused.body.reason_code, (refused.body.detail as { field?: string }).field]).toEqual([
        JSON.stringify(body),
        status,
        code,
        'signature_formats',
      ]);
    }

    const optedIn = await http('PATCH', `${base}/${id}`, { headers: auth, json: { signature_formats: ['svc', 'standard_webhooks'] } });
    expect(optedIn.status).toBe(200);
    expect(optedIn.body).toMatchObject({ id, signature_formats: ['svc', 'standard_webhooks'] });
    expect((await http('GET', `${base}/${id}`, { headers: auth })).body.signature_formats).toEqual(['svc', 'standard_webhooks']);
    const signed = await testDelivery(id, '/toggle');
    expect(new Webhook(secret).verify(signed.rawBody, headerRecord(signed.headers))).toMatchObject({ event: 'webhook.test' });

    expect((await http('PATCH', `${base}/${id}`, { headers: auth, json: { signature_formats: ['svc'] } })).status).toBe(200);
    const optedOut = await testDelivery(id, '/toggle');
    expect(Object.keys(optedOut.headers).filter((name) => name.startsWith('webhook-'))).toEqual([]);
    expect(verifyWebhook({ rawBody: optedOut.rawBody, headers: optedOut.headers, secrets: [secret] }).eventType).toBe('webhook.test');
  });
});
