import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The WebAuthn browser library (`@simplewebauthn/browser`, UMD bundle), served from this origin. */
export const WEBAUTHN_BUNDLE = readFileSync(
  join(dirname(require.resolve('@simplewebauthn/browser')), '..', 'dist', 'bundle', 'index.umd.min.js'),
  'utf8',
);

/** Its Subresource Integrity digest, written into every page that loads it. */
export const WEBAUTHN_INTEGRITY = `sha384-${createHash('sha384').update(WEBAUTHN_BUNDLE).digest('base64')}`;
