/**
 * The soak's server: one monolithic region (every service in one process, talking over NATS) in a
 * process of its own, so its RSS and event-loop delay are the server's alone. Started by soak.ts
 * with the region's environment; answers over IPC with its URL and two applications' API tokens
 * (one for the request mix, one for imports, so their webhooks are told apart), and closes when
 * the parent disconnects.
 */
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { startRegion } from '@svc/region-stack';

/** What the server tells its parent once it answers. */
export interface SoakServerReady {
  url: string;
  applications: Array<{ id: string; apiToken: string }>;
}

async function main(): Promise<void> {
  const region = await startRegion({ ...process.env } as Record<string, string>);
  let closing = false;
  const close = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    await region.close();
    process.exit(0);
  };
  process.on('disconnect', () => void close());
  process.on('SIGTERM', () => void close());
  const applications: SoakServerReady['applications'] = [];
  for (const name of ['soak', 'soak-imports']) {
    const created = await region.app.get(CreateApplication).execute(CreateApplicationCommand.create({ name, environment: 'development' }));
    applications.push({ id: created.application.id, apiToken: created.apiToken });
  }
  process.send?.({ url: region.url, applications } satisfies SoakServerReady);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
