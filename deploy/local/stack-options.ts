import { REGIONS, type Region } from '@svc/config';

/**
 * `SVC_INSTANCES`: processes per service in distributed mode, 1 to 9 (the ports of a region's
 * services leave room for nine: instance n of service i listens on base + region × 100 + n × 10 + i).
 */
export function instancesPerService(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SVC_INSTANCES;
  if (raw === undefined || raw === '') return 1;
  if (!/^[1-9]$/.test(raw)) throw new Error('SVC_INSTANCES must be a whole number from 1 to 9');
  return Number(raw);
}

/** `SVC_REGIONS`: the regions to start, comma-separated (default all three). */
export function selectedRegions(env: NodeJS.ProcessEnv = process.env): Region[] {
  const raw = env.SVC_REGIONS;
  if (raw === undefined || raw.trim() === '') return [...REGIONS];
  const named = raw.split(',').map((name) => name.trim());
  const unknown = named.find((name) => !(REGIONS as readonly string[]).includes(name));
  if (unknown !== undefined)
    throw new Error(`SVC_REGIONS must name regions among ${REGIONS.join(', ')}, separated by commas (got "${unknown}")`);
  return REGIONS.filter((region) => named.includes(region));
}
