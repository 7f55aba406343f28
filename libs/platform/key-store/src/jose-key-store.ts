import { createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { cryptoError, type KeyEncryption } from '@svc/crypto';
import { KEYS_SCHEMA } from './keys.migrations';
import { decryptPkcs8 } from './private-key';

/** Algorithms of the region's RSA and P-256 keys (ID tokens of OpenID clients; Ed25519 stays in {@link SigningKeyStore}). */
export const JOSE_KEY_ALGORITHMS = ['RS256', 'ES256'] as const;
export type JoseKeyAlgorithm = (typeof JOSE_KEY_ALGORITHMS)[number];

/** A private JWK with its `kid`, `alg` and `use` (for a JOSE library that signs with it). */
export type PrivateSigningJwk = JsonWebKey & { kid: string; alg: string; use: 'sig' };
/** A public JWK with its `kid`, `alg` and `use` (never `d`, `p`, `q`, ...). */
export type PublicSigningJwk = JsonWebKey & { kid: string; alg: string; use: 'sig' };

interface StoredRow {
  kid: string;
  algorithm: JoseKeyAlgorithm;
  version: number;
  status: 'active' | 'retired';
  public_jwk: JsonWebKey;
  private_key_enc: Buffer;
}

const TABLE = `"${KEYS_SCHEMA}".jose_keys`;
const REGION_PATTERN = /^[a-z][a-z0-9]{0,15}$/;

/**
 * The region's RSA (RS256, 2048-bit) and P-256 (ES256) signing keys, in `keys.jose_keys`, in the
 * same kid family as the Ed25519 keys: `oap-<region>-rs256-v<N>`, `oap-<region>-es256-v<N>`.
 * Private halves are encrypted with {@link KeyEncryption} under `aad = kid`, like the Ed25519 ones.
 * Creation takes the same kind of transaction-scoped advisory lock per region and algorithm, so
 * processes racing at boot create exactly one key of each.
 */
export class JoseKeyStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly region: string,
    private readonly kek: KeyEncryption,
  ) {
    if (!REGION_PATTERN.test(region)) {
      throw cryptoError('signing_region_invalid', 'Region must be 1-16 lowercase letters or digits, starting with a letter', { region });
    }
  }

  /** `oap-<region>-<alg lowercased>-v<version>`. */
  kidFor(algorithm: JoseKeyAlgorithm, version: number): string {
    return `oap-${this.region}-${algorithm.toLowerCase()}-v${version}`;
  }

  /** Creates version 1 of each algorithm the region lacks an active key of. Safe from every process at boot. */
  async ensureActiveKeys(): Promise<void> {
    for (const algorithm of JOSE_KEY_ALGORITHMS) {
      await this.dataSource.transaction(async (manager) => {
        await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`keys.jose_keys:${this.region}:${algorithm}`]);
        const active: Array<{ kid: string }> = await manager.query(
          `SELECT kid FROM ${TABLE} WHERE region = $1 AND algorithm = $2 AND status = 'active'`,
          [this.region, algorithm],
        );
        if (active.length > 0) return;
        const [max] = (await manager.query(
          `SELECT coalesce(max(version), 0)::int AS version FROM ${TABLE} WHERE region = $1 AND algorithm = $2`,
          [this.region, algorithm],
        )) as Array<{ version: number }>;
        const version = (max?.version ?? 0) + 1;
        const kid = this.kidFor(algorithm, version);
        const { privateKey, publicKey } =
          algorithm === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
        const der = privateKey.export({ format: 'der', type: 'pkcs8' });
        const envelope = this.kek.encrypt(der, kid);
        der.fill(0);
        await manager.query(
          `INSERT INTO ${TABLE} (kid, region, algorithm, version, public_jwk, private_key_enc, status) VALUES ($1, $2, $3, $4, $5::jsonb, $6, 'active')`,
          [kid, this.region, algorithm, version, JSON.stringify(publicKey.export({ format: 'jwk' })), envelope],
        );
      });
    }
  }

  /** The active key of each algorithm as a private JWK (for the OpenID provider's key set). */
  async activePrivateJwks(): Promise<PrivateSigningJwk[]> {
    const rows: StoredRow[] = await this.dataSource.query(
      `SELECT kid, algorithm, version, status, public_jwk, private_key_enc FROM ${TABLE} WHERE region = $1 AND status = 'active' ORDER BY algorithm`,
      [this.region],
    );
    return rows.map((row) => ({
      ...(this.decrypt(row).export({ format: 'jwk' }) as JsonWebKey),
      kid: row.kid,
      alg: row.algorithm,
      use: 'sig' as const,
    }));
  }

  /** Every key of the region (active and retired), public members only, newest first. */
  async publicJwks(): Promise<PublicSigningJwk[]> {
    const rows: StoredRow[] = await this.dataSource.query(
      `SELECT kid, algorithm, version, status, public_jwk FROM ${TABLE} WHERE region = $1 ORDER BY version DESC, algorithm`,
      [this.region],
    );
    return rows.map((row) => ({
      ...(createPublicKey({ key: row.public_jwk, format: 'jwk' }).export({ format: 'jwk' }) as JsonWebKey),
      kid: row.kid,
      alg: row.algorithm,
      use: 'sig' as const,
    }));
  }

  private decrypt(row: StoredRow): KeyObject {
    const privateKey = decryptPkcs8(this.kek, row.private_key_enc, row.kid);
    // Same threat as the Ed25519 store: a swapped public half would publish a key nobody holds.
    const derived = createPublicKey(privateKey).export({ format: 'jwk' });
    const stored = row.public_jwk;
    const matches =
      row.algorithm === 'RS256'
        ? derived.n === stored.n && derived.e === stored.e
        : derived.x === stored.x && derived.y === stored.y && derived.crv === stored.crv;
    if (!matches) throw cryptoError('signing_key_corrupt', `Signing key ${row.kid} does not match its public key`, { kid: row.kid });
    return privateKey;
  }
}
