import { FakeClock, REGIONS, type Clock, type Region } from '@svc/config';
import { startRegion } from '@svc/region-stack';
import type { RunningProcess } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { createTestDatabase, deleteTestStreams, freePort, testConfig, testKeyEncryptionKey, uniqueBusPrefix, type TestDatabase } from '@svc/testing';

export interface TestRegions {
  url: Record<Region, string>;
  process: Record<Region, RunningProcess>;
  prefix: string;
  close(): Promise<void>;
}

/**
 * Boots the three regions in monolithic mode inside the test process, each on its own database
 * and all on a bus prefix of their own, as `npm start` would (but on free ports).
 */
export async function startRegions(label: string, options: { clock?: Clock; regions?: readonly Region[]; logger?: Logger } = {}): Promise<TestRegions> {
  const regions = options.regions ?? REGIONS;
  const prefix = uniqueBusPrefix();
  const kek = testKeyEncryptionKey();
  const ports = Object.fromEntries(await Promise.all(REGIONS.map(async (r) => [r, await freePort()] as const))) as Record<Region, number>;
  const regionUrls = REGIONS.map((r) => `${r}=http://127.0.0.1:${ports[r]}`).join(',');
  const databases: TestDatabase[] = [];
  const process = {} as Record<Region, RunningProcess>;
  const url = {} as Record<Region, string>;
  for (const region of regions) {
    const database = await createTestDatabase(`${label}_${region}`);
    databases.push(database);
    process[region] = await startRegion(
      testConfig({
        REGION: region,
        DATABASE_URL: database.url,
        BUS_PREFIX: prefix,
        HTTP_PORT: String(ports[region]),
        KEY_ENCRYPTION_KEY: kek,
        REGION_URLS: regionUrls,
        PUBLIC_BASE_URL: `http://127.0.0.1:${ports[region]}`,
        SERVICE_NAME: `e2e-${region}`,
      }),
      { clock: options.clock, logger: options.logger },
    );
    url[region] = `http://127.0.0.1:${ports[region]}`;
  }
  return {
    url,
    process,
    prefix,
    close: async () => {
      for (const region of regions) await process[region]?.close();
      for (const database of databases) await database.drop();
      await deleteTestStreams(prefix);
    },
  };
}

export { FakeClock };
