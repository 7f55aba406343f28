import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { verifyWebhook } from '@svc/sdk-webhooks';
import { http, waitFor } from '@svc/testing';
import { startRegions, type TestRegions } from '../support/regions';

/** Issue 8 through the region's public router (monolithic mode): subscribe, test delivery, log. */
describe('webhooks through the us router', () => {
  let stack: TestRegions;
  let receiver: Server;
  let port = 0;
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    port = (receiver.address() as AddressInfo).port;
    stack = await startRegions('webhooks', { regions: ['us'] });
  });
  afterAll(async () => {
    await stack?.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('creates a subscription, sends a signed test delivery and shows it in the delivery log', async () => {
    const app = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'e2e-hooks', environment: 'development' }));
    const auth = { authorization: `Bearer ${app.apiToken}` };
    const base = `${stack.url.us}/api/v1/applications/${app.application.id}/webhook_subscriptions`;
    const created = await http('POST', base, {
      headers: auth,
      json: { url: `http://127.0.0.1:${port}/hook`, events: ['consent.granted'] },
    });
    expect(created.status).toBe(201);
    const secret = created.body.secret as string;
    const id = created.body.id as string;
    const queued = await http('POST', `${base}/${id}/test`, { headers: auth });
    expect(queued.status).toBe(202);
    const request = await waitFor(() => received[0]);
    const timestamp = String(request.headers['x-svc-timestamp']);
    expect(request.headers['x-svc-signature']).toBe(
      `v1=${createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest('hex')}`,
    );
    expect(verifyWebhook({ rawBody: request.body, headers: request.headers, secrets: [secret] }).eventType).toBe('webhook.test');
    const log = await waitFor(async () => {
      const res = await http<{ data: Array<Record<string, unknown>> }>('GET', `${base}/${id}/deliveries`, { headers: auth });
      return res.body.data[0]?.status === 'succeeded' ? res.body.data : undefined;
    });
    expect(log[0]).toMatchObject({ event_type: 'webhook.test', test: true, attempt_count: 1, last_status_code: 204 });
  });
});
