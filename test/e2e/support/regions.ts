import { FakeClock, REGIONS, type Clock, type Region } from '@svc/config';
import { migrateRegion, regionMigrationFingerprint, startRegion } from '@svc/region-stack';
import type { RunningProcess } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import {
  createTestDatabaseFrom,
  deleteTestStreams,
  freePort,
  testEnv,
  testKeyEncryptionKey,
  uniqueBusPrefix,
  type TestDatabase,
} from '@svc/testing';

export interface TestRegions {
  url: Record<Region, string>;
  process: Record<Region, RunningProcess>;
  prefix: string;
  close(): Promise<void>;
}

export interface StartRegionsOptions {
  clock?: Clock;
  regions?: readonly Region[];
  /** NATS the regions connect to (e.g. a proxy the test controls); the shared test server by default. */
  natsUrl?: string;
  /** Bus prefix of the regions; a fresh one by default. */
  prefix?: string;
  /** The database URL a region is given, from the URL of the database made for it (e.g. through a proxy the test controls). */
  databaseUrl?: (url: string, region: Region) => string;
  /** HTTP ports of some regions; free ports by default. */
  ports?: Partial<Record<Region, number>>;
  /** Logger of every region (e.g. one writing to a stream the test reads); JSON on stdout by default. */
  logger?: Logger;
  /** Further variables of every region's process, e.g. SMTP_URL or a feature's own (`OAP_TRUST_LISTS`). */
  env?: Record<string, string>;
  /** PUBLIC_BASE_URL host of every region (e.g. `localhost`, which WebAuthn accepts as an RP ID); 127.0.0.1 by default. */
  publicHost?: string;
}

/** Every region database starts as a copy of one migrated once per set of migrations. */
export const regionTemplate = {
  fingerprint: regionMigrationFingerprint(),
  build: async (url: string) => {
    await migrateRegion(url);
  },
};

/**
 * Boots the three regions in monolithic mode inside the test process, each on its own database
 * and all on a bus prefix of their own, as `npm start` would (but on free ports). When a region
 * fails to boot, everything booted so far is torn down (processes, databases, streams) before the
 * error is rethrown, so a failed boot leaves nothing running and nothing behind.
 */
export async function startRegions(label: string, options: StartRegionsOptions = {}): Promise<TestRegions> {
  const regions = options.regions ?? REGIONS;
  const prefix = options.prefix ?? uniqueBusPrefix();
  const kek = testKeyEncryptionKey();
  const ports = Object.fromEntries(
    await Promise.all(REGIONS.map(async (r) => [r, options.ports?.[r] ?? (await freePort())] as const)),
  ) as Record<Region, number>;
  const regionUrls = REGIONS.map((r) => `${r}=http://127.0.0.1:${ports[r]}`).join(',');
  const databases: TestDatabase[] = [];
  const process = {} as Record<Region, RunningProcess>;
  const url = {} as Record<Region, string>;
  const close = async (): Promise<void> => {
    for (const region of regions) await process[region]?.close();
    // Together: each DROP DATABASE waits for a checkpoint, which concurrent drops share.
    await Promise.all([...databases.map((database) => database.drop()), deleteTestStreams(prefix)]);
  };
  try {
    for (const region of regions) {
      const database = await createTestDatabaseFrom(`${label}_${region}`, regionTemplate);
      databases.push(database);
      process[region] = await startRegion(
        testEnv({
          REGION: region,
          DATABASE_URL: options.databaseUrl?.(database.url, region) ?? database.url,
          BUS_PREFIX: prefix,
          HTTP_PORT: String(ports[region]),
          KEY_ENCRYPTION_KEY: kek,
          REGION_URLS: regionUrls,
          PUBLIC_BASE_URL: `http://${options.publicHost ?? '127.0.0.1'}:${ports[region]}`,
          SERVICE_NAME: `e2e-${region}`,
          ...(options.natsUrl ? { NATS_URL: options.natsUrl } : {}),
          ...options.env,
        }),
        { clock: options.clock, logger: options.logger },
      );
      url[region] = `http://127.0.0.1:${ports[region]}`;
    }
  } catch (error) {
    await close().catch((cleanupError: unknown) => {
      throw new AggregateError([error, cleanupError], 'region boot failed, and so did its teardown');
    });
    throw error;
  }
  return { url, process, prefix, close };
}

export { FakeClock };
