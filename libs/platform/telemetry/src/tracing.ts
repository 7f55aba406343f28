import { createRequire } from 'node:module';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK } from '@opentelemetry/sdk-node';

/**
 * Starts OpenTelemetry tracing when an OTLP endpoint is configured; returns a shutdown function.
 * Call before the HTTP server is created so its requests are instrumented.
 */
export function startTracing(options: { serviceName: string; endpoint?: string }): () => Promise<void> {
  if (!options.endpoint) return async () => undefined;
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    traceExporter: new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/$/, '')}/v1/traces` }),
    instrumentations: [new HttpInstrumentation()],
  });
  sdk.start();
  // The HTTP instrumentation patches `http`/`https` as Node's loader hands them out; by now the
  // server libraries have loaded them, so have them handed out once more (the patch is in place on
  // the shared modules; without this no request span exists and traces start at the outbox).
  const nodeRequire = createRequire(__filename);
  nodeRequire('http');
  nodeRequire('https');
  return () => sdk.shutdown();
}
