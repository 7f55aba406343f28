import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BUSINESS_METRICS } from '@svc/telemetry';
import { http, waitFor } from '@svc/testing';
import {
  createAgent,
  createApp,
  createAuthority,
  grantBody,
  newAgentKey,
  requestGrant,
  type AgentKey,
  type TestApp,
} from './oap-authorizer/support';
import { startRegions, type TestRegions } from './support/regions';

jest.setTimeout(120_000);

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

/** One sample of a Prometheus text exposition: the value of `name` whose labels include `labels`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) return Number(match[3]);
  }
  return undefined;
}

/** Every label set of `name`'s samples. */
function labelSets(text: string, name: string): Array<Record<string, string>> {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`))
    .map((line) => Object.fromEntries([...line.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!])));
}

/** A webhook receiver: `/ok` answers 204, `/gone` answers 410 (which disables the subscription). */
function startReceiver(): Promise<{ server: Server; url: (path: string) => string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits.push(req.url ?? '');
      res.statusCode = req.url === '/gone' ? 410 : 204;
      res.end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: (path) => `http://127.0.0.1:${port}${path}`, hits });
    }),
  );
}

/**
 * Issue 19, Deliver 4: the business metrics move on /metrics as grants are decided, consent is
 * recorded and its webhooks delivered, records are imported and the audit chain appends.
 */
describe('business metrics on /metrics', () => {
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let before: string;
  const scrape = async (): Promise<string> => (await http('GET', `${us}/metrics`)).text;

  beforeAll(async () => {
    receiver = await startReceiver();
    stack = await startRegions('business_metrics', { regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack, 'metrics');
    key = await newAgentKey();
    before = await scrape();
  });
  afterAll(async () => {
    await stack?.close();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  it('exports every business metric of the catalogue, each with its help and type', async () => {
    const text = await scrape();
    for (const definition of Object.values(BUSINESS_METRICS)) {
      expect(text).toContain(`# TYPE ${definition.name} ${definition.type}\n`);
    }
  });

  it('counts grants by outcome and cascade step, and shows the escalation left open', async () => {
    const validUntil = new Date(Date.now() + 3_600_000).toISOString();
    const agentId = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, agentId);
    const allowed = await requestGrant(us, app, key, grantBody(agentId, key, { valid_until: validUntil }), { now: new Date() });
    expect(allowed.status).toBe(201);
    const denied = await requestGrant(
      us,
      app,
      key,
      grantBody(agentId, key, { valid_until: validUntil, value_bounds: { amount_per_action: '100.01', currency: 'EUR' } }),
      { now: new Date() },
    );
    expect([denied.status, denied.body.cascade_step]).toEqual([403, 7]);
    const escalatingAgent = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, escalatingAgent, { escalation_bounds: { always: true, quorum_type: 'all', approvers: ['user_1'] } });
    const escalated = await requestGrant(us, app, key, grantBody(escalatingAgent, key, { valid_until: validUntil }), { now: new Date() });
    expect(escalated.status).toBe(202);

    const after = await scrape();
    const moved = (labels: Record<string, string>) =>
      (sample(after, 'oap_grant_decisions_total', labels) ?? 0) - (sample(before, 'oap_grant_decisions_total', labels) ?? 0);
    expect(moved({ outcome: 'allow', cascade_step: 'none' })).toBe(1);
    expect(moved({ outcome: 'deny', cascade_step: '7' })).toBe(1);
    expect(moved({ outcome: 'escalate', cascade_step: '10' })).toBe(1);
    expect(sample(before, 'oap_escalations_open')).toBe(0);
    expect(sample(after, 'oap_escalations_open')).toBe(1);
    // No identifiers in labels: the agent's id appears nowhere in the exposition.
    expect(after).not.toContain(agentId);
    expect(after).not.toContain(app.id);
  });

  it('counts a recorded consent webhook delivery by outcome with its latency, and a disabled endpoint', async () => {
    const flow = await http('POST', `${us}/api/v1/flows`, {
      headers: auth(app.token),
      json: {
        name: 'Signup',
        locale: 'en',
        presentation: { title: 'Stay in touch' },
        purposes: [{ key: 'newsletter', label: 'Newsletter' }],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    const flowId = flow.body.id as string;
    expect((await http('POST', `${us}/api/v1/flows/${flowId}/activate`, { headers: auth(app.token), json: {} })).status).toBeLessThan(300);
    for (const path of ['/ok', '/gone']) {
      const subscribed = await http('POST', `${us}/api/v1/applications/${app.id}/webhook_subscriptions`, {
        headers: auth(app.token),
        json: { url: receiver.url(path), events: ['consent.granted'] },
      });
      expect(subscribed.status).toBe(201);
    }
    const record = await http('POST', `${us}/api/v1/consent_records`, {
      headers: auth(app.token),
      json: {
        flow_id: flowId,
        subject: { external_id: 'metrics-1' },
        decisions: { newsletter: { decision: 'granted', default_checked: false, mandatory: false } },
        captured_at: new Date(Date.now() - 60_000).toISOString(),
        idempotency_key: 'metrics-record-1',
      },
    });
    expect(record.status).toBe(201);

    const after = await waitFor(
      async () => {
        const text = await scrape();
        return sample(text, 'webhook_endpoints_disabled') === 1 &&
          (sample(text, 'webhook_delivery_attempts_total', { outcome: 'success' }) ?? 0) >= 1
          ? text
          : undefined;
      },
      30_000,
      200,
    );
    expect(receiver.hits).toEqual(expect.arrayContaining(['/ok', '/gone']));
    expect(sample(before, 'webhook_endpoints_disabled')).toBe(0);
    expect(sample(after, 'webhook_delivery_attempts_total', { outcome: 'http_error' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'webhook_delivery_duration_seconds_count', { outcome: 'success' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'webhook_delivery_duration_seconds_bucket', { outcome: 'success', le: '+Inf' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'webhook_delivery_duration_seconds_sum', { outcome: 'success' })).toBeGreaterThan(0);
  });

  it('counts imported rows by outcome once the worker committed them', async () => {
    const flow = await http('POST', `${us}/api/v1/flows`, {
      headers: auth(app.token),
      json: {
        name: 'Import',
        locale: 'en',
        presentation: { title: 'Imported' },
        purposes: [{ key: 'newsletter', label: 'Newsletter' }],
        consent_duration: 'P1Y',
      },
    });
    const flowId = flow.body.id as string;
    expect((await http('POST', `${us}/api/v1/flows/${flowId}/activate`, { headers: auth(app.token), json: {} })).status).toBeLessThan(300);
    const row = (i: number, purpose = 'newsletter') => ({
      subject: { external_id: `imported-${i}` },
      decisions: { [purpose]: { decision: 'granted', default_checked: false, mandatory: false } },
      captured_at: '2026-01-02T03:04:05Z',
      idempotency_key: `metrics-import-${i}`,
    });
    const imported = await http('POST', `${us}/api/v1/consent_records/imports`, {
      headers: auth(app.token),
      json: { flow_id: flowId, records: [row(1), row(2), row(3, 'unknown_purpose')] },
    });
    expect(imported.status).toBe(202);
    await waitFor(
      async () =>
        (await http('GET', `${us}/api/v1/consent_records/imports/${imported.body.id as string}`, { headers: auth(app.token) })).body
          .status === 'completed'
          ? true
          : undefined,
      30_000,
      200,
    );
    const after = await scrape();
    const moved = (outcome: string) =>
      (sample(after, 'consent_import_rows_processed_total', { outcome }) ?? 0) -
      (sample(before, 'consent_import_rows_processed_total', { outcome }) ?? 0);
    expect([moved('created'), moved('failed')]).toEqual([2, 1]);
  });

  it('shows the audit chain appending, the outbox drained per schema and each durable consumer caught up', async () => {
    const after = await waitFor(
      async () => {
        const text = await scrape();
        const lags = labelSets(text, 'bus_consumer_lag_messages').map((labels) => sample(text, 'bus_consumer_lag_messages', labels));
        const unpublished = labelSets(text, 'outbox_unpublished_events').map((labels) => sample(text, 'outbox_unpublished_events', labels));
        return lags.length > 0 && lags.every((lag) => lag === 0) && unpublished.every((count) => count === 0) ? text : undefined;
      },
      30_000,
      200,
    );
    expect(
      (sample(after, 'audit_entries_appended_total') ?? 0) - (sample(before, 'audit_entries_appended_total') ?? 0),
    ).toBeGreaterThanOrEqual(4);
    expect(labelSets(after, 'outbox_unpublished_events').map((labels) => labels.schema)).toEqual(
      expect.arrayContaining(['consent_records', 'oap', 'webhooks', 'audit']),
    );
    for (const labels of labelSets(after, 'outbox_oldest_unpublished_age_seconds'))
      expect(sample(after, 'outbox_oldest_unpublished_age_seconds', labels)).toBe(0);
    expect(labelSets(after, 'bus_consumer_lag_messages').length).toBeGreaterThanOrEqual(3);
    // The test region runs without an external witness.
    expect(sample(after, 'audit_last_witnessed_checkpoint_age_seconds')).toBe(-1);
    expect(sample(after, 'audit_last_checkpoint_age_seconds')).toBeGreaterThanOrEqual(0);
  });
});
