import type { KeyObject } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import {
  cryptoError,
  sha256Base64Url,
  ed25519PublicJwk,
  generateEd25519KeyPair,
  importEd25519PublicJwk,
  type ActiveSigningKey,
  type Ed25519PublicJwk,
  type KeyEncryption,
  type SigningJwk,
} from '@svc/crypto';
import { KEYS_SCHEMA } from './keys.migrations';
import { decryptPkcs8 } from './private-key';

/** Lifecycle state of a signing key: `active` signs (one per region); `retired` only verifies. */
export type SigningKeyStatus = 'active' | 'retired';

/** A signing key's public record (never its private half). */
export interface SigningKeyInfo {
  /** `oap-<region>-v<version>`. */
  kid: string;
  region: string;
  /** 1, 2, ... incremented by each rotation. */
  version: number;
  algorithm: 'EdDSA';
  status: SigningKeyStatus;
  publicJwk: Ed25519PublicJwk;
  createdAt: Date;
  /** When it stopped signing; null while active. */
  retiredAt: Date | null;
}

/** Tuning of {@link SigningKeyStore}; every member is optional. */
export interface SigningKeyStoreOptions {
  /**
   * How long the active key and the key set are served from memory, ms. Default 60 000. Bounds how
   * long another process keeps signing with a key this one rotated away when the rotation event
   * is lost; `reload()` on the event makes it immediate.
   */
  cacheTtlMs?: number;
  /**
   * Minimum interval between key-set reloads caused by a well-formed but unknown `kid`, ms.
   * Default 1 000. Lets a key rotated in by another process verify at once while capping the
   * database queries an attacker can cause by sending made-up kids.
   */
  unknownKidRefreshMs?: number;
  /** Time source (structurally `Clock` of `@svc/config`). Default: the system clock. */
  clock?: { now(): Date };
}

interface KeyRow {
  kid: string;
  region: string;
  version: number;
  algorithm: 'EdDSA';
  status: SigningKeyStatus;
  public_jwk: Ed25519PublicJwk;
  created_at: Date;
  retired_at: Date | null;
}

interface StoredKeyRow {
  kid: string;
  public_jwk: Ed25519PublicJwk;
  private_key_enc: Buffer;
}

interface KnownKey {
  info: SigningKeyInfo;
  publicKey: KeyObject;
}

/** The JWKS as answered: its exact bytes and their strong ETag. */
export interface SerialisedJwks {
  body: string;
  etag: string;
}

/** The JWKS serialised from one loaded key set. */
interface JwksOfKeySet {
  of: Promise<Map<string, KnownKey>>;
  document: Promise<SerialisedJwks>;
  /** The document once serialised: what `currentJwksDocument` answers synchronously. */
  settled?: SerialisedJwks;
}

interface Cached<T> {
  value: Promise<T>;
  loadedAt: number;
}

const TABLE = `"${KEYS_SCHEMA}".signing_keys`;
const PUBLIC_COLUMNS = 'kid, region, version, algorithm, status, public_jwk, created_at, retired_at';
const REGION_PATTERN = /^[a-z][a-z0-9]{0,15}$/;

/**
 * The Ed25519 signing keys of one region, in `keys.signing_keys`, private halves encrypted with
 * {@link KeyEncryption} under `aad = kid`.
 *
 * Concurrency: creation and rotation take a transaction-scoped advisory lock per region, so any
 * number of processes racing at boot or rotating together serialise; the table's unique
 * constraints back this up. Reads are cached per process (see {@link SigningKeyStoreOptions}).
 */
export class SigningKeyStore {
  private readonly cacheTtlMs: number;
  private readonly unknownKidRefreshMs: number;
  private readonly clock: { now(): Date };
  private readonly kidPattern: RegExp;
  private active?: Cached<ActiveSigningKey>;
  /** The last active key loaded, served while its successor loads (see {@link activeKey}). */
  private lastActive?: ActiveSigningKey;
  private keySet?: Cached<Map<string, KnownKey>>;
  private jwksSerialised?: JwksOfKeySet;

  /**
   * @param region region these keys sign for (lowercase letters and digits, e.g. `us`); throws
   *   `signing_region_invalid` otherwise, since it becomes part of every `kid`.
   * @param kek encryption of private keys at rest.
   */
  constructor(
    private readonly dataSource: DataSource,
    private readonly region: string,
    private readonly kek: KeyEncryption,
    options: SigningKeyStoreOptions = {},
  ) {
    if (!REGION_PATTERN.test(region)) {
      throw cryptoError('signing_region_invalid', 'Region must be 1-16 lowercase letters or digits, starting with a letter', { region });
    }
    this.cacheTtlMs = options.cacheTtlMs ?? 60_000;
    this.unknownKidRefreshMs = options.unknownKidRefreshMs ?? 1_000;
    this.clock = options.clock ?? { now: () => new Date() };
    this.kidPattern = new RegExp(`^oap-${region}-v[1-9][0-9]{0,8}$`);
  }

  /** The `kid` of version `version` of this region's key: `oap-<region>-v<version>`. */
  kidFor(version: number): string {
    return `oap-${this.region}-v${version}`;
  }

  /**
   * Returns the region's active key, creating `oap-<region>-v1` when the region has none. Safe to
   * call from every process at boot: exactly one key is created whatever the interleaving.
   */
  async ensureActiveKey(): Promise<SigningKeyInfo> {
    return this.dataSource.transaction(async (manager) => {
      await this.lockRegion(manager);
      const rows: KeyRow[] = await manager.query(`SELECT ${PUBLIC_COLUMNS} FROM ${TABLE} WHERE region = $1 AND status = 'active'`, [
        this.region,
      ]);
      const existing = rows[0];
      if (existing) return toInfo(existing);
      return this.insertNextVersion(manager);
    });
  }

  /**
   * Creates version N+1 as the active key and retires the previous active one (which stays in the
   * JWKS and keeps verifying). `inTransaction`, when given, runs inside the same transaction after
   * the new key is written — the place to enqueue the rotation event in the outbox, so the event
   * exists if and only if the rotation committed. Clears this process's caches.
   *
   * Refuses (`key_decryption_failed` naming the kid, nothing written) unless this store's KEK
   * decrypts every existing key of the region: a new active key under another KEK would leave the
   * running processes unable to sign.
   */
  async rotate(inTransaction?: (manager: EntityManager, key: SigningKeyInfo) => Promise<void>): Promise<SigningKeyInfo> {
    const created = await this.dataSource.transaction(async (manager) => {
      await this.lockRegion(manager);
      await this.assertDecryptable(manager);
      await manager.query(`UPDATE ${TABLE} SET status = 'retired', retired_at = now() WHERE region = $1 AND status = 'active'`, [
        this.region,
      ]);
      const key = await this.insertNextVersion(manager);
      if (inTransaction) await inTransaction(manager, key);
      return key;
    });
    this.reload();
    return created;
  }

  /**
   * The key to sign with, served from memory; once older than `cacheTtlMs` (default 60 s) it is
   * reloaded behind the callers, who keep the previous key until the reload lands. Throws
   * `signing_key_unavailable` if the region has no active key (boot must call
   * {@link ensureActiveKey}), `key_decryption_failed` if the KEK is wrong, and `signing_key_corrupt`
   * if the decrypted private key does not match the stored public key.
   */
  async activeKey(): Promise<ActiveSigningKey> {
    const now = this.clock.now().getTime();
    if (this.active && now - this.active.loadedAt < this.cacheTtlMs) return this.lastActive ?? this.active.value;
    const entry: Cached<ActiveSigningKey> = { value: this.loadActiveKey(), loadedAt: now };
    this.active = entry;
    // A failed load must not be served from the cache; concurrent callers share one load meanwhile.
    void entry.value.then(
      (key) => {
        if (this.active === entry) this.lastActive = key;
      },
      () => {
        if (this.active === entry) this.active = undefined;
      },
    );
    // Once a key was loaded, a routine refresh never makes a caller wait: signers call this inside
    // transactions that hold a pool connection, and a load that needs a second one could wait on a
    // pool those same transactions exhaust. The previous key (still in the JWKS) signs until the
    // refresh lands; a rotation in this process calls reload(), which forgets it at once.
    return this.lastActive ?? entry.value;
  }

  /** Forgets cached keys so the next call reads the database; call on a key-rotation event. */
  reload(): void {
    this.active = undefined;
    this.lastActive = undefined;
    this.keySet = undefined;
  }

  /**
   * The public key of `kid` if it is one of this region's keys, active or retired; otherwise
   * undefined. Kids not of the form `oap-<region>-v<N>` are answered without touching the database.
   * Usable directly as the `resolveKey` of `verifyCompactJws`.
   */
  async publicKey(kid: string): Promise<KeyObject | undefined> {
    if (!this.kidPattern.test(kid)) return undefined;
    const known = (await this.keys()).get(kid);
    if (known) return known.publicKey;
    const now = this.clock.now().getTime();
    if (this.keySet && now - this.keySet.loadedAt < this.unknownKidRefreshMs) return undefined;
    this.keySet = undefined;
    return (await this.keys()).get(kid)?.publicKey;
  }

  /**
   * The region's JWKS (RFC 7517 §5): every key, active and retired, newest first, each with
   * `kid`, `alg: 'EdDSA'`, `use: 'sig'`, `kty: 'OKP'`, `crv: 'Ed25519'` and `x` — never `d`.
   */
  async jwks(): Promise<{ keys: SigningJwk[] }> {
    const keys = [...(await this.keys()).values()].sort((a, b) => b.info.version - a.info.version);
    return {
      keys: keys.map(({ info }) => ({ kty: 'OKP', crv: 'Ed25519', x: info.publicJwk.x, kid: info.kid, alg: 'EdDSA', use: 'sig' })),
    };
  }

  /**
   * The JWKS serialised once per loaded key set (a rotation here or its event elsewhere reloads
   * it), with its strong ETag: the quoted base64url SHA-256 of the body.
   */
  async jwksDocument(): Promise<SerialisedJwks> {
    const keySet = this.keys();
    if (this.jwksSerialised?.of !== keySet) {
      const document = keySet
        .then(() => this.jwks())
        .then((jwks) => {
          const body = JSON.stringify(jwks);
          return { body, etag: `"${sha256Base64Url(body)}"` };
        });
      const serialised: JwksOfKeySet = { of: keySet, document };
      this.jwksSerialised = serialised;
      document.then(
        (settled) => {
          serialised.settled = settled;
        },
        () => {
          if (this.jwksSerialised === serialised) this.jwksSerialised = undefined;
        },
      );
    }
    return this.jwksSerialised.document;
  }

  /**
   * The serialised JWKS when it is in memory and as fresh as {@link jwksDocument} would answer it
   * (the key set within its cache lifetime, not dropped by a rotation or its event), else
   * undefined: a caller that cannot wait (an answer before the route) leaves the load to
   * {@link jwksDocument}.
   */
  currentJwksDocument(): SerialisedJwks | undefined {
    const keySet = this.keySet;
    if (!keySet || this.clock.now().getTime() - keySet.loadedAt >= this.cacheTtlMs) return undefined;
    const serialised = this.jwksSerialised;
    return serialised?.of === keySet.value ? serialised.settled : undefined;
  }

  /** Every key of the region with its public record, newest first (admin and diagnostics). */
  async list(): Promise<SigningKeyInfo[]> {
    const rows: KeyRow[] = await this.dataSource.query(`SELECT ${PUBLIC_COLUMNS} FROM ${TABLE} WHERE region = $1 ORDER BY version DESC`, [
      this.region,
    ]);
    return rows.map(toInfo);
  }

  /** Not `async`: callers compare the promise itself with the one a serialised JWKS was made of. */
  private keys(): Promise<Map<string, KnownKey>> {
    const now = this.clock.now().getTime();
    if (this.keySet && now - this.keySet.loadedAt < this.cacheTtlMs) return this.keySet.value;
    const entry: Cached<Map<string, KnownKey>> = { value: this.loadKeySet(), loadedAt: now };
    this.keySet = entry;
    void entry.value.catch(() => {
      if (this.keySet === entry) this.keySet = undefined;
    });
    return entry.value;
  }

  private async loadKeySet(): Promise<Map<string, KnownKey>> {
    const infos = await this.list();
    return new Map(infos.map((info) => [info.kid, { info, publicKey: importEd25519PublicJwk(info.publicJwk) }]));
  }

  private async loadActiveKey(): Promise<ActiveSigningKey> {
    const rows: StoredKeyRow[] = await this.dataSource.query(
      `SELECT kid, public_jwk, private_key_enc FROM ${TABLE} WHERE region = $1 AND status = 'active'`,
      [this.region],
    );
    const row = rows[0];
    if (!row) throw cryptoError('signing_key_unavailable', `Region ${this.region} has no active signing key`, { region: this.region });
    return { kid: row.kid, privateKey: this.decryptPrivateKey(row), publicJwk: { kty: 'OKP', crv: 'Ed25519', x: row.public_jwk.x } };
  }

  /** Decrypts every key of the region (active and retired); throws naming the first that fails. */
  private async assertDecryptable(manager: EntityManager): Promise<void> {
    const rows: StoredKeyRow[] = await manager.query(
      `SELECT kid, public_jwk, private_key_enc FROM ${TABLE} WHERE region = $1 ORDER BY version`,
      [this.region],
    );
    for (const row of rows) {
      try {
        this.decryptPrivateKey(row);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw cryptoError('key_decryption_failed', `Signing key ${row.kid} cannot be decrypted with this key-encryption key: ${reason}`, {
          kid: row.kid,
        });
      }
    }
  }

  private decryptPrivateKey(row: StoredKeyRow): KeyObject {
    const privateKey = decryptPkcs8(this.kek, row.private_key_enc, row.kid);
    // Threat: someone able to write the table swaps public_jwk (published in the JWKS) without the
    // private key; signing would then produce signatures nobody can verify, or worse, a JWKS that
    // vouches for a foreign key. Refuse to sign rather than publish inconsistent material.
    if (privateKey.asymmetricKeyType !== 'ed25519' || ed25519PublicJwk(privateKey).x !== row.public_jwk.x) {
      throw cryptoError('signing_key_corrupt', `Signing key ${row.kid} does not match its public key`, { kid: row.kid });
    }
    return privateKey;
  }

  private async lockRegion(manager: EntityManager): Promise<void> {
    // Transaction-scoped: released by commit or rollback, so a crashed caller cannot leave it held.
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`keys.signing_keys:${this.region}`]);
  }

  /** Inserts the next version as active; the caller holds the region lock and retired the previous one. */
  private async insertNextVersion(manager: EntityManager): Promise<SigningKeyInfo> {
    const [max] = (await manager.query(`SELECT coalesce(max(version), 0)::int AS version FROM ${TABLE} WHERE region = $1`, [
      this.region,
    ])) as Array<{ version: number }>;
    const version = (max?.version ?? 0) + 1;
    const kid = this.kidFor(version);
    const { privateKey, publicJwk } = generateEd25519KeyPair();
    const der = privateKey.export({ format: 'der', type: 'pkcs8' });
    const envelope = this.kek.encrypt(der, kid);
    der.fill(0);
    const rows: KeyRow[] = await manager.query(
      `INSERT INTO ${TABLE} (kid, region, version, algorithm, public_jwk, private_key_enc, status)
       VALUES ($1, $2, $3, 'EdDSA', $4::jsonb, $5, 'active') RETURNING ${PUBLIC_COLUMNS}`,
      [kid, this.region, version, JSON.stringify(publicJwk), envelope],
    );
    const row = rows[0];
    if (!row) throw new Error(`Insert of signing key ${kid} returned no row`);
    return toInfo(row);
  }
}

function toInfo(row: KeyRow): SigningKeyInfo {
  return {
    kid: row.kid,
    region: row.region,
    version: row.version,
    algorithm: row.algorithm,
    status: row.status,
    publicJwk: { kty: 'OKP', crv: 'Ed25519', x: row.public_jwk.x },
    createdAt: row.created_at,
    retiredAt: row.retired_at,
  };
}
