import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { SpanKind, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor, LoopbackReceiver } from '@svc/testing';
import { startRegions, type TestRegions } from '../support/regions';

type Json = Record<string, unknown>;

jest.setTimeout(120_000);

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
  const httpInstrumentation = new HttpInstrumentation({ enabled: false });
  const nodeHttp = createRequire(__filename)('node:http') as typeof import('node:http');
  const receiver = new LoopbackReceiver();
  let stack: TestRegions;
  let us: string;
  let app: { id: string; token: string };
  let flowId: string;

  beforeAll(async () => {
    context.setGlobalContextManager(contextManager.enable());
    trace.setGlobalTracerProvider(provider);
    httpInstrumentation.setTracerProvider(provider);
    // The instrumentation patches `http` when Node's loader hands the module out, which Jest's
    // module registry bypasses: patch the (shared) module directly.
    for (const definition of httpInstrumentation.getModuleDefinitions()) if (definition.name === 'http') definition.patch?.(nodeHttp);
    await receiver.start();
    stack = await startRegions('bus_traces', { regions: ['us'] });
    us = stack.url.us;
    const created = await stack.process.us.app.get(CreateApplication).execute(CreateApplicationCommand.create({ name: 'Traced shop', environment: 'development' }));
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
      json: { url: receiver.url('/hooks'), events: ['consent.granted'] },
    });
    expect(subscription.status).toBe(201);
  });

  afterAll(async () => {
    await stack?.close();
    await receiver.close();
    for (const definition of httpInstrumentation.getModuleDefinitions()) if (definition.name === 'http') definition.unpatch?.(nodeHttp);
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
    await waitFor(() => receiver.on('/hooks').find((r) => (r.body.data as Json).record_id === recordId), 20_000);
    await waitFor(async () => (await http('GET', `${us}/api/v1/consent_receipts/${recordId}`, { headers: auth(app.token) })).status === 200);

    const request = serverSpanOf(exporter.getFinishedSpans(), 'POST', '/api/v1/consent_records');
    const traceId = request.spanContext().traceId;
    const inTrace = (): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const consumed = (group: (name: string) => boolean) => (s: ReadableSpan) =>
      s.kind === SpanKind.CONSUMER && s.name === 'consent.recorded process' && group(String(s.attributes['messaging.consumer.group.name']));

    // Each span ends after its work: wait until the audit entry and the delivery have been acknowledged.
    const spans = await waitFor(() => {
      const all = inTrace();
      const done = all.some(consumed((g) => g === 'audit-chain')) && all.some((s) => s.kind === SpanKind.CLIENT && s.name.startsWith('webhook '));
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
    // The receipt's work (its calls for the flow's wording and the application's name) nests under its consumer span.
    const receiptCalls = spans.filter((s) => s.kind === SpanKind.CLIENT && parentOf(s) === receipt!.spanContext().spanId).map((s) => s.name);
    expect(receiptCalls).toEqual(expect.arrayContaining(['consent_records.get_flow call', 'gateway.get_application call']));
    const delivery = spans.find((s) => s.kind === SpanKind.CLIENT && s.name === 'webhook consent.granted deliver');
    expect(delivery).toBeDefined();
    expect(parentOf(delivery!)).toBe(intake!.spanContext().spanId);
    expect(delivery!.attributes['http.response.status_code']).toBe(200);
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
