import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The region accounts file every nats-server of the platform loads. */
export const ACCOUNTS_CONFIG = join(__dirname, '..', 'nats', 'accounts.conf');

/** The nats-server binary: NATS_SERVER_BIN, else the first `nats-server` on PATH. Throws when there is none. */
export function natsServerBinary(): string {
  const candidates = process.env.NATS_SERVER_BIN ? [process.env.NATS_SERVER_BIN] : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'nats-server'));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // next candidate
    }
  }
  throw new Error('nats-server binary not found: install nats-server (2.9+) on PATH or set NATS_SERVER_BIN to its path');
}

/**
 * A random account password. nats-server parses an environment value referenced from its config as
 * a config token, so the value starts with a letter and holds only letters and digits.
 */
export function randomPassword(): string {
  return `p${randomBytes(16).toString('hex')}`;
}
