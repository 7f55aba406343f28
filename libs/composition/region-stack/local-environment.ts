import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Region } from '@svc/config';

/** `SVC_EMBEDDED=always`: the local stack runs its own Postgres and NATS, with ports and a data folder of their own. */
const EMBEDDED_FORCED = process.env.SVC_EMBEDDED === 'always';

/**
 * Folder (ignored by git) holding the local stack's generated key-encryption key, logs and the data
 * of the servers it runs itself: `SVC_LOCAL_STATE_DIR` when set, otherwise `.local/` at the
 * repository root (`.local/embedded/` with `SVC_EMBEDDED=always`).
 */
export const LOCAL_STATE_DIR =
  process.env.SVC_LOCAL_STATE_DIR ?? join(__dirname, '..', '..', '..', '.local', ...(EMBEDDED_FORCED ? ['embedded'] : []));

/** File where the running local stack leaves the URL template of the Postgres it started itself. */
export const LOCAL_DATABASE_URL_TEMPLATE_FILE = join(LOCAL_STATE_DIR, 'database-url-template');

/** File of the local stack's generated key-encryption key. */
export const LOCAL_KEY_ENCRYPTION_KEY_FILE = join(LOCAL_STATE_DIR, 'key-encryption-key');

/** Router port base of the local stack: SVC_ROUTER_PORT_BASE, else 8080 (8090 with `SVC_EMBEDDED=always`). */
export function routerPortBase(): number {
  return Number(process.env.SVC_ROUTER_PORT_BASE ?? (EMBEDDED_FORCED ? 8090 : 8080));
}

/** Region → router port of the local stack: us 8081, eu 8082, ap 8083 (base 8080 by default). */
export function routerPort(region: Region, base = routerPortBase()): number {
  return base + { us: 1, eu: 2, ap: 3 }[region];
}

/**
 * Postgres URL of a region's database, from DATABASE_URL_TEMPLATE (`{region}` is replaced); without
 * it, the Postgres the running local stack started itself, else 127.0.0.1:5432.
 */
export function regionDatabaseUrl(region: Region): string {
  const started = existsSync(LOCAL_DATABASE_URL_TEMPLATE_FILE) ? readFileSync(LOCAL_DATABASE_URL_TEMPLATE_FILE, 'utf8').trim() : undefined;
  const template = process.env.DATABASE_URL_TEMPLATE ?? started ?? 'postgres://postgres@127.0.0.1:5432/svc_{region}';
  return template.replace('{region}', region);
}

/**
 * The key-encryption key of the local stack: KEY_ENCRYPTION_KEY when set, otherwise one generated
 * once into `.local/` (never committed). Production always sets the variable from its secret store.
 */
export function localKeyEncryptionKey(): string {
  const configured = configuredKeyEncryptionKey();
  if (configured) return configured;
  mkdirSync(LOCAL_STATE_DIR, { recursive: true });
  writeFileSync(LOCAL_KEY_ENCRYPTION_KEY_FILE, randomBytes(32).toString('base64'), { mode: 0o600 });
  chmodSync(LOCAL_KEY_ENCRYPTION_KEY_FILE, 0o600);
  return readFileSync(LOCAL_KEY_ENCRYPTION_KEY_FILE, 'utf8').trim();
}

/**
 * The key-encryption key already in use: KEY_ENCRYPTION_KEY when set, otherwise the one the local
 * stack generated into `.local/`; undefined when there is neither. Never generates one, for tools
 * that must work with the existing keys (a fresh key could not decrypt them).
 */
export function configuredKeyEncryptionKey(): string | undefined {
  if (process.env.KEY_ENCRYPTION_KEY) return process.env.KEY_ENCRYPTION_KEY;
  if (!existsSync(LOCAL_KEY_ENCRYPTION_KEY_FILE)) return undefined;
  return readFileSync(LOCAL_KEY_ENCRYPTION_KEY_FILE, 'utf8').trim() || undefined;
}

/**
 * The region's bus credentials in the local stack: its account user (deploy/nats/accounts.conf)
 * when `NATS_<REGION>_PASSWORD` is set, none otherwise (a bus without accounts).
 */
function regionBusCredentials(region: Region): Record<string, string> {
  const password = process.env[`NATS_${region.toUpperCase()}_PASSWORD`];
  return password ? { NATS_USER: `svc-${region}`, NATS_PASSWORD: password } : {};
}

/** Environment of a region's processes in the local stack. */
export function regionEnvironment(region: Region, extra: Record<string, string> = {}): Record<string, string> {
  const base = routerPortBase();
  const regionUrls = (['us', 'eu', 'ap'] as const).map((r) => `${r}=http://127.0.0.1:${routerPort(r, base)}`).join(',');
  return {
    REGION: region,
    DATABASE_URL: regionDatabaseUrl(region),
    NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    BUS_PREFIX: process.env.BUS_PREFIX ?? 'svc',
    ...regionBusCredentials(region),
    KEY_ENCRYPTION_KEY: localKeyEncryptionKey(),
    PUBLIC_BASE_URL: `http://127.0.0.1:${routerPort(region, base)}`,
    REGION_URLS: regionUrls,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    ...extra,
  };
}
