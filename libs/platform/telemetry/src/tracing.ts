import { createRequire } from 'node:module';
import { loadTraceInstrumentations } from './instrumentations';

/**
 * Modules the instrumentations patch when Node's loader hands them out. A process's entry point
 * imports the server, `pg` and `undici` before the configuration (and so the OTLP endpoint) is
 * known; asking the loader for them again once the hooks are registered patches the loaded copies
 * in place (`http.request`, `Client.prototype.query`, `Pool.prototype.connect`). `undici` publishes
 * its requests on diagnostics channels, which the instrumentation subscribes to whenever it loads.
 */
const PATCHED_ON_LOAD = ['http', 'https', 'pg', 'pg-pool'] as const;

/**
 * Starts OpenTelemetry tracing when an OTLP endpoint is configured; returns a shutdown function.
 * Call before the HTTP server is created so its requests are instrumented: incoming HTTP, pg
 * queries (SQL text only, never bind values) and outbound undici calls (URLs without query).
 */
export async function startTracing(options: { serviceName: string; endpoint?: string }): Promise<() => Promise<void>> {
  if (!options.endpoint) return async () => undefined;
  // Loaded here, not at import: without an endpoint the SDK and its exporters are never needed.
  const [{ NodeSDK }, { OTLPTraceExporter }, instrumentations] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    loadTraceInstrumentations(),
  ]);
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    traceExporter: new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/$/, '')}/v1/traces` }),
    instrumentations: [instrumentations.http, instrumentations.pg, instrumentations.undici],
  });
  sdk.start();
  const nodeRequire = createRequire(__filename);
  for (const name of PATCHED_ON_LOAD) nodeRequire(name);
  return () => sdk.shutdown();
}
