/**
 * The server process the import benchmark measures: decision-gateway and consent-records of region
 * us on the database and bus prefix the benchmark passes (BENCH_DATABASE_URL, BENCH_BUS_PREFIX),
 * run as a service runs (compiled JavaScript, the image's Node flags), so its memory is the
 * service's alone: no benchmark, no TypeScript compiler.
 *
 * Over IPC it sends `{ ready, url, apiToken }` once it listens, answers `rss` with its resident
 * memory now and at its peak (sampled every 50 ms since boot), and closes on `stop`.
 */
import { SystemClock } from '@svc/config';
import { CreateApplication, CreateApplicationCommand, decisionGatewayFeature } from '@svc/decision-gateway';
import { consentRecordsFeature } from '@svc/consent-records';
import { startProcess } from '@svc/server';
import { testEnv } from '@svc/testing';

export type ImportServerMessage =
  { type: 'ready'; url: string; apiToken: string } | { type: 'rss'; rss: number; peakRss: number } | { type: 'failed'; message: string };

function send(message: ImportServerMessage): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
  const running = await startProcess({
    features: [decisionGatewayFeature, consentRecordsFeature],
    env: testEnv({
      REGION: 'us',
      DATABASE_URL: process.env.BENCH_DATABASE_URL!,
      BUS_PREFIX: process.env.BENCH_BUS_PREFIX!,
      PUBLIC_BASE_URL: 'https://us.example.test',
      SERVICE_NAME: 'bench-import',
      LOG_LEVEL: 'warn',
    }),
    clock: new SystemClock(),
  });
  const created = await running.app
    .get(CreateApplication)
    .execute(CreateApplicationCommand.create({ name: 'bench', environment: 'development' }));
  process.on('message', (message: { type?: string }) => {
    if (message.type === 'rss') {
      const rss = process.memoryUsage().rss;
      send({ type: 'rss', rss, peakRss: Math.max(peakRss, rss) });
    } else if (message.type === 'stop') {
      clearInterval(sampler);
      running.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    }
  });
  send({ type: 'ready', url: running.url, apiToken: created.apiToken });
}

main().catch((error: unknown) => {
  send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
