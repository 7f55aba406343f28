import { startRegion } from '@svc/region-stack';
import { createTestDatabase, deleteTestStreams, freePort, testEnv, testKeyEncryptionKey, uniqueBusPrefix } from '@svc/testing';

/** A monolithic region (every service in one process) on a database and bus prefix of its own. */
export interface BenchRegion {
  /** The region's HTTP base URL (the router, as a client sees it). */
  base: string;
  region: Awaited<ReturnType<typeof startRegion>>;
  /** Stops the region, then drops its database and streams. */
  close(): Promise<void>;
}

/**
 * Starts the region the HTTP benchmarks measure: region us, the other two regions unreachable,
 * logs at warn. `name` names the database, the service and the bus prefix's run.
 */
export async function startBenchRegion(name: string, options: { poolSize: string }): Promise<BenchRegion> {
  const database = await createTestDatabase(`bench_${name}`);
  const prefix = uniqueBusPrefix();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  try {
    const region = await startRegion(
      testEnv({
        REGION: 'us',
        DATABASE_URL: database.url,
        BUS_PREFIX: prefix,
        HTTP_PORT: String(port),
        KEY_ENCRYPTION_KEY: testKeyEncryptionKey(),
        PUBLIC_BASE_URL: base,
        REGION_URLS: `us=${base},eu=http://127.0.0.1:1,ap=http://127.0.0.1:2`,
        DATABASE_POOL_SIZE: options.poolSize,
        SERVICE_NAME: `bench-${name}`,
        LOG_LEVEL: 'warn',
      }),
    );
    return {
      base,
      region,
      close: async () => {
        await region.close();
        await database.drop();
        await deleteTestStreams(prefix);
      },
    };
  } catch (error) {
    await database.drop();
    await deleteTestStreams(prefix);
    throw error;
  }
}
