import { isIP } from 'node:net';
import { regionCountries } from '@svc/config';
import type { ResidencyRegisterConfig } from './residency-register.config';
import { DATA_CATEGORIES } from '@svc/contracts';

export type AssuranceStatus = 'verified' | 'declared' | 'violated';

/** Where one part of the deployment keeps or moves data, and how we know. */
export interface PostureComponent {
  readonly component: 'database' | 'bus' | 'backups' | 'log_sink' | 'telemetry';
  /** The setting the location is read from. */
  readonly setting: string;
  /** Host of the setting (no credentials), when it is a URL. */
  readonly host: string | null;
  /** Country the data is in; null when the platform cannot state it (absence rule). */
  readonly country: string | null;
  readonly status: AssuranceStatus;
  /** The check behind the status, in words. */
  readonly check: string;
}

/** One row of the posture: a country and data category, where it is stored and processed. */
export interface PostureRow {
  readonly country: string;
  readonly data_category: string;
  readonly storage_locations: string[];
  readonly processing_locations: string[];
  readonly status: AssuranceStatus;
  readonly checks: string[];
}

export interface ResidencyPosture {
  readonly object: 'residency_posture';
  readonly region: string;
  readonly country: string;
  readonly generated_at: string;
  readonly components: PostureComponent[];
  readonly data: PostureRow[];
}

/** Whether `host` is loopback or a private (RFC 1918 / RFC 4193 / link-local) address, i.e. the region's own network. */
export function isPrivateHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost') return true;
  const family = isIP(bare);
  if (family === 4) {
    const [a = 0, b = 0] = bare.split('.').map(Number);
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  if (family === 6) return bare === '::1' || /^f[cd]/i.test(bare) || /^fe80/i.test(bare);
  return false;
}

function hostOf(url: string): string | null {
  try {
    return new URL(url.split(',')[0] ?? url).hostname || null;
  } catch {
    return null;
  }
}

/** A URL-located component: verified on the private network, else as declared (or unstated). */
function urlComponent(
  component: PostureComponent['component'],
  setting: string,
  url: string,
  declaredSetting: string,
  declared: string | undefined,
  home: string,
): PostureComponent {
  const host = hostOf(url);
  if (declared && declared !== home) {
    return {
      component,
      setting,
      host,
      country: declared,
      status: 'violated',
      check: `${declaredSetting}=${declared} is outside the region's country ${home}`,
    };
  }
  if (host && isPrivateHost(host)) {
    return {
      component,
      setting,
      host,
      country: home,
      status: 'verified',
      check: `${setting} host ${host} is a loopback or private address, reachable only inside the region's network`,
    };
  }
  if (declared)
    return {
      component,
      setting,
      host,
      country: declared,
      status: 'declared',
      check: `${setting} host ${host ?? '(none)'} is public; its country is declared by ${declaredSetting}`,
    };
  return {
    component,
    setting,
    host,
    country: null,
    status: 'declared',
    check: `${setting} host ${host ?? '(none)'} is public and ${declaredSetting} is not set: its country is not stated`,
  };
}

/** A component the process cannot inspect: only a declaration. */
function declaredComponent(
  component: PostureComponent['component'],
  setting: string,
  declared: string | undefined,
  home: string,
  what: string,
): PostureComponent {
  if (!declared)
    return {
      component,
      setting,
      host: null,
      country: null,
      status: 'declared',
      check: `${setting} is not set: where ${what} are kept is not stated`,
    };
  if (declared !== home)
    return {
      component,
      setting,
      host: null,
      country: declared,
      status: 'violated',
      check: `${setting}=${declared} is outside the region's country ${home}`,
    };
  return {
    component,
    setting,
    host: null,
    country: declared,
    status: 'declared',
    check: `${setting}=${declared}, declared by the operator; the process cannot inspect ${what}`,
  };
}

const RANK: Record<AssuranceStatus, number> = { verified: 0, declared: 1, violated: 2 };

/**
 * The region's residency posture, computed from the process's configuration: the region database
 * and the bus (verified when on the private network), backups and log sink (declared by variables,
 * the process cannot see them), telemetry export (verified when off or private), and the
 * destination countries of recorded transfers per data category (processing locations).
 */
export function computePosture(
  config: ResidencyRegisterConfig,
  destinations: ReadonlyMap<string, readonly string[]>,
  now: Date,
): ResidencyPosture {
  const home = regionCountries(config)[config.REGION];
  const components: PostureComponent[] = [
    urlComponent('database', 'DATABASE_URL', config.DATABASE_URL, 'RESIDENCY_DATABASE_COUNTRY', config.RESIDENCY_DATABASE_COUNTRY, home),
    urlComponent('bus', 'NATS_URL', config.NATS_URL, 'RESIDENCY_BUS_COUNTRY', config.RESIDENCY_BUS_COUNTRY, home),
    declaredComponent('backups', 'RESIDENCY_BACKUP_COUNTRY', config.RESIDENCY_BACKUP_COUNTRY, home, 'database backups'),
    declaredComponent(
      'log_sink',
      'RESIDENCY_LOG_SINK_COUNTRY',
      config.RESIDENCY_LOG_SINK_COUNTRY,
      home,
      'collected logs (which carry no personal data)',
    ),
    config.OTEL_EXPORTER_OTLP_ENDPOINT
      ? urlComponent(
          'telemetry',
          'OTEL_EXPORTER_OTLP_ENDPOINT',
          config.OTEL_EXPORTER_OTLP_ENDPOINT,
          'RESIDENCY_TELEMETRY_COUNTRY',
          config.RESIDENCY_TELEMETRY_COUNTRY,
          home,
        )
      : {
          component: 'telemetry',
          setting: 'OTEL_EXPORTER_OTLP_ENDPOINT',
          host: null,
          country: home,
          status: 'verified',
          check: 'OTEL_EXPORTER_OTLP_ENDPOINT is not set: no trace leaves the process',
        },
  ];
  const storing = components.filter((c) => c.component === 'database' || c.component === 'backups' || c.component === 'bus');
  const data = DATA_CATEGORIES.map((category): PostureRow => {
    const storage = [...new Set(storing.map((c) => c.country).filter((c): c is string => c !== null))].sort();
    const processing = [...new Set([home, ...(destinations.get(category) ?? [])])].sort();
    const status = storing.reduce<AssuranceStatus>((worst, c) => (RANK[c.status] > RANK[worst] ? c.status : worst), 'verified');
    const checks = storing.map((c) => `${c.component}: ${c.status}`);
    if ((destinations.get(category) ?? []).length > 0)
      checks.push('processing outside the region: recorded in the transfer register with a lawful basis');
    return { country: home, data_category: category, storage_locations: storage, processing_locations: processing, status, checks };
  });
  return { object: 'residency_posture', region: config.REGION, country: home, generated_at: now.toISOString(), components, data };
}
