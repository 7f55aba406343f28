/**
 * Loads `pg`, `undici` and `http` the way a process's entry point does (before its configuration
 * is read), then starts tracing against the OTLP collector named by argv[2] and, inside one span,
 * runs a SQL query with a bind value (database argv[3]) and an outbound call with a query string
 * (to argv[4]); the marker value comes from PROBE_MARKER. Flushes on the way out.
 */
import { trace } from '@opentelemetry/api';
import { Client } from 'pg';
import { request } from 'undici';
import { startTracing } from '../src/tracing';

async function main(): Promise<void> {
  const [collector, databaseUrl, target] = process.argv.slice(2) as [string, string, string];
  const marker = process.env.PROBE_MARKER ?? 'marker';
  const stop = await startTracing({ serviceName: 'tracing-probe', endpoint: collector });
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  await trace.getTracer('probe').startActiveSpan('probe work', async (span) => {
    await client.query('SELECT $1::text AS marker', [marker]);
    const response = await request(`${target}/hooks?token=${marker}`, { method: 'POST', body: '{}' });
    await response.body.text();
    span.end();
  });
  await client.end();
  await stop();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  },
);
