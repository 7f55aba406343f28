import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { SpanKind, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { loadTraceInstrumentations, type TraceInstrumentations } from '@svc/telemetry';
import { http, waitFor, LoopbackReceiver } from '@svc/testing';
import { startRegions, type TestRegions } from '../support/regions';

type Json = Record<string, unknown>;

jest.setTimeout(120_000);

const HOOK_TOKEN = randomBytes(8).toString('hex');

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * One trace follows a consent record from its HTTP request through the outbox and the bus to the
 * receipt, the audit chain and the webhook delivery: what an operator opens when asking "what
 * happened to this record". The tracer provider and its in-memory exporter are registered here,
 * as an OpenTelemetry SDK would be in a deployment.
 */
describe('traces across the bus', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager();
  // The deployment's instrumentations, configured as startTracing configures them (loaded in beforeAll).
  let instrumentations: TraceInstrumentations | undefined;
  let patched: ReturnType<TraceInstrumentations['http']['getModuleDefinitions']> = [];
  // `pg` and `pg-pool` as the stack loads them through Jest's registry (which shares node:http).
  const loaded: Record<string, unknown> = {
    http: createRequire(__filename)('node:http'),
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the very module objects the stack under test uses
    pg: require('pg'),
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- as above
    'pg-pool': require('pg-pool'),
  };
  const receiver = new LoopbackReceiver();
  let stack: TestRegions;
  let us: string;
  let app: { id: string; token: string };
  let flowId: string;

  beforeAll(async () => {
    instrumentations = await loadTraceInstrumentations({ enabled: false });
    patched = [instrumentations.http, instrumentations.pg].flatMap((i) => i.getModuleDefinitions()).filter((d) => d.name in loaded);
    context.setGlobalContextManager(contextManager.enable());
    trace.setGlobalTracerProvider(provider);
    for (const instrumentation of Object.values(instrumentations)) instrumentation.setTracerProvider(provider);
    // The instrumentations patch `http` and `pg` when Node's loader hands the modules out, which
    // Jest's module registry bypasses: patch the modules the stack uses directly. undici reports on
    // diagnostics channels, which enabling subscribes to.
    for (const definition of patched) definition.patch?.(loaded[definition.name]);
    instrumentations.undici.setConfig({ ...instrumentations.undici.getConfig(), enabled: true });
    instrumentations.undici.enable();
    await receiver.start();
    stack = await startRegions('bus_traces', { regions: ['us'] });
    us = stack.url.us;
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Traced shop', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken };
    const flow = await http('POST', `${us}/api/v1/flows`, {
      headers: auth(app.token),
      json: {
        name: 'Newsletter',
        locale: 'en',
        presentation: { title: 'Join', description: 'What we do with your details' },
        purposes: [{ key: 'newsletter', label: 'Newsletter', description: 'A monthly letter' }],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    flowId = flow.body.id as string;
    expect((await http('POST', `${us}/api/v1/flows/${flowId}/activate`, { headers: auth(app.token) })).status).toBe(200);
    const subscription = await http('POST', `${us}/api/v1/applications/${app.id}/webhook_subscriptions`, {
      headers: auth(app.token),
      // A query string, as customer endpoints sometimes carry a token there: it must not reach a span.
      json: { url: receiver.url(`/hooks?token=${HOOK_TOKEN}`), events: ['consent.granted'] },
    });
    expect(subscription.status).toBe(201);
  });

  afterAll(async () => {
    await stack?.close();
    await receiver.close();
    instrumentations?.undici.disable();
    for (const definition of patched) definition.unpatch?.(loaded[definition.name]);
    await provider.shutdown();
    trace.disable();
    context.disable();
  });

  it('shows the request, the outbox relay, the receipt, the audit entry and the webhook delivery in one trace', async () => {
    const unique = randomBytes(6).toString('hex');
    const recorded = await http('POST', `${us}/api/v1/consent_records`, {
      headers: auth(app.token),
      json: {
        flow_id: flowId,
        subject: { external_id: `traced-${unique}` },
        decisions: { newsletter: { decision: 'granted', default_checked: false, mandatory: false } },
        captured_at: new Date(Date.now() - 60_000).toISOString(),
        idempotency_key: `traced-${unique}`,
      },
    });
    expect(recorded.status).toBe(201);
    const recordId = recorded.body.id as string;
    await waitFor(() => receiver.on(`/hooks?token=${HOOK_TOKEN}`).find((r) => (r.body.data as Json).record_id === recordId), 20_000);
    await waitFor(
      async () => (await http('GET', `${us}/api/v1/consent_receipts/${recordId}`, { headers: auth(app.token) })).status === 200,
    );

    const request = serverSpanOf(exporter.getFinishedSpans(), 'POST', '/api/v1/consent_records');
    const traceId = request.spanContext().traceId;
    const inTrace = (): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const consumed = (group: (name: string) => boolean) => (s: ReadableSpan) =>
      s.kind === SpanKind.CONSUMER && s.name === 'consent.recorded process' && group(String(s.attributes['messaging.consumer.group.name']));

    // Each span ends after its work: wait until the audit entry and the delivery have been acknowledged.
    const spans = await waitFor(() => {
      const all = inTrace();
      const done =
        all.some(consumed((g) => g === 'audit-chain')) && all.some((s) => s.kind === SpanKind.CLIENT && s.name.startsWith('webhook '));
      return done ? all : undefined;
    }, 20_000);

    // The group commit that wrote the record and its outbox row, then the relay publishing the row.
    const commit = spans.find((s) => s.name === 'consent_records record commit');
    expect(parentOf(commit!)).toBe(request.spanContext().spanId);
    expect(spans.map((s) => s.name)).toContain('outbox relay consent_records');
    const published = spans.find((s) => s.kind === SpanKind.PRODUCER && s.name === 'consent.recorded publish');
    expect(parentOf(published!)).toBe(request.spanContext().spanId);
    const receipt = spans.find(consumed((g) => g === 'receipts-consent-records'));
    const audit = spans.find(consumed((g) => g === 'audit-chain'));
    const intake = spans.find(consumed((g) => g.startsWith('webhook-dispatcher')));
    for (const consumer of [receipt, audit, intake]) {
      expect(consumer).toBeDefined();
      expect(parentOf(consumer!)).toBe(published!.spanContext().spanId);
      expect(consumer!.attributes['messaging.message.id']).toBe(published!.attributes['messaging.message.id']);
    }
    // The receipt's work nests under its consumer span (the batch of records frozen together, then
    // its database statements), and no call back for the flow's wording or the application's
    // name, which the event carries.
    const batch = spans.find((s) => s.name === 'receipts consent record batch' && parentOf(s) === receipt!.spanContext().spanId);
    expect(batch).toBeDefined();
    const underReceipt = new Set([receipt!.spanContext().spanId, batch!.spanContext().spanId]);
    const receiptWork = spans.filter((s) => underReceipt.has(parentOf(s) ?? '')).map((s) => s.name);
    expect(receiptWork.some((name) => name.startsWith('pg'))).toBe(true);
    expect(receiptWork).not.toEqual(expect.arrayContaining(['consent_records.get_flow call']));
    expect(receiptWork).not.toEqual(expect.arrayContaining(['gateway.get_application call']));
    const delivery = spans.find((s) => s.kind === SpanKind.CLIENT && s.name === 'webhook consent.granted deliver');
    expect(delivery).toBeDefined();
    expect(parentOf(delivery!)).toBe(intake!.spanContext().spanId);
    expect(delivery!.attributes['http.response.status_code']).toBe(200);

    // pg: the record's insert under the group commit, SQL text only (no bind values); the delivery's
    // outbound call as an undici span under the delivery, its URL without the query string.
    const queries = spans.filter(
      (s) => s.instrumentationScope.name === '@opentelemetry/instrumentation-pg' && s.name.startsWith('pg.query'),
    );
    expect(
      queries.some((s) => parentOf(s) === commit!.spanContext().spanId && /INSERT INTO/i.test(String(s.attributes['db.query.text']))),
    ).toBe(true);
    expect(queries.some((s) => parentOf(s) === delivery!.spanContext().spanId)).toBe(true);
    const outbound = spans.find(
      (s) => s.instrumentationScope.name === '@opentelemetry/instrumentation-undici' && parentOf(s) === delivery!.spanContext().spanId,
    );
    expect(outbound).toBeDefined();
    expect(outbound!.kind).toBe(SpanKind.CLIENT);
    expect(outbound!.attributes['url.full']).toBe(receiver.url('/hooks'));
    expect(outbound!.attributes['http.response.status_code']).toBe(200);
    // Every span of the stack (the receiver's own server spans aside: it stands for the customer).
    const receiverPort = Number(new URL(receiver.url()).port);
    const everyAttribute = JSON.stringify(
      exporter
        .getFinishedSpans()
        .filter((s) => s.attributes['server.port'] !== receiverPort || s.kind !== SpanKind.SERVER)
        .map((s) => s.attributes),
    );
    expect(everyAttribute).not.toContain(HOOK_TOKEN);
    expect(everyAttribute).not.toContain(`traced-${unique}`);
    expect(everyAttribute).not.toMatch(/db\.query\.parameter|db\.statement\.parameters/);
  });
});

/** The server span of one HTTP request, whichever semantic-convention attributes the instrumentation writes. */
function serverSpanOf(spans: readonly ReadableSpan[], method: string, path: string): ReadableSpan {
  const found = spans.filter((s) => {
    if (s.kind !== SpanKind.SERVER) return false;
    const attributes = s.attributes;
    const spanMethod = attributes['http.request.method'] ?? attributes['http.method'];
    const target = String(attributes['url.path'] ?? attributes['http.target'] ?? attributes['http.route'] ?? '');
    return spanMethod === method && target.startsWith(path);
  });
  expect(found).toHaveLength(1);
  return found[0]!;
}

function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
