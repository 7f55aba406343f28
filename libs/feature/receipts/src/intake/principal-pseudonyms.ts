import { createHash, createHmac, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import { DataSource } from 'typeorm';

/** Prefix of a receipt's pseudonymous principal id. */
export const PSEUDONYM_PREFIX = 'psn_';

/**
 * The reference a pseudonym is derived from: a consent record's subject (the email, lower-cased,
 * when given — the Record API and captures always carry one — else the organisation's external id)
 * or an authority's principal id. Each kind is its own namespace.
 */
export type PrincipalReference = { kind: 'email' | 'external_id' | 'principal'; value: string };

/** The reference of a consent record's subject, or undefined for a record about nobody. */
export function subjectReference(subject: { email: string; externalId: string }): PrincipalReference | undefined {
  if (subject.email) return { kind: 'email', value: subject.email.toLowerCase() };
  if (subject.externalId) return { kind: 'external_id', value: subject.externalId };
  return undefined;
}

/** `psn_` + base64url(HMAC-SHA256(secret, "<kind>:<value>")): stable per person and application, not reversible without the secret. */
export function derivePseudonym(secret: Buffer, reference: PrincipalReference): string {
  return PSEUDONYM_PREFIX + createHmac('sha256', secret).update(`${reference.kind}:${reference.value}`, 'utf8').digest('base64url');
}

const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The key row of a reference: SHA-256("<kind>:" + SHA-256(value)). decision-gateway sends the
 * SHA-256 of each reference a person is linked by (emails trimmed and lower-cased), so an erasure
 * finds the person's keys without the references crossing the bus.
 */
export function referenceDigest(kind: PrincipalReference['kind'], valueSha256: string): string {
  return sha256Hex(`${kind}:${valueSha256}`);
}

/**
 * `pii_principal_id` of receipts frozen from other services' events. A receipt travels to the
 * person, the organisation and anyone they hand it to, so it never carries the raw subject
 * reference (an email is guessable: a plain hash of it could be confirmed by anyone). Each person
 * (each reference of theirs) at each application gets a random secret of its own, stored encrypted
 * under the key-encryption key in the home region, and the principal id is a keyed hash of the
 * reference under it: the same person gets the same id in every receipt of that application;
 * other applications' receipts cannot be linked to it; and erasure destroys the secret
 * (crypto-shredding, `shred`), after which no one — the platform included — can derive the id from
 * the person's email, external id or `usr_` id again, so their old receipts no longer resolve to
 * them while their signatures still verify. Secrets are read per use, never cached, so a shredded
 * secret is gone from every process at once.
 */
@Injectable()
export class PrincipalPseudonyms {
  constructor(
    private readonly dataSource: DataSource,
    private readonly kek: KeyEncryption,
    private readonly clock: Clock,
  ) {}

  async pseudonym(applicationId: string, reference: PrincipalReference): Promise<string> {
    return (await this.pseudonyms([{ applicationId, reference }]))[0]!;
  }

  /** The pseudonyms of several people (a batch of records), in order, with one statement for all their secrets. */
  async pseudonyms(subjects: ReadonlyArray<{ applicationId: string; reference: PrincipalReference }>): Promise<string[]> {
    const keys = subjects.map(({ applicationId, reference }) => ({
      applicationId,
      digest: referenceDigest(reference.kind, sha256Hex(reference.value)),
    }));
    const secrets = await this.secrets(keys);
    return subjects.map(({ reference }, i) => derivePseudonym(secrets.get(keyOf(keys[i]!))!, reference));
  }

  /**
   * Destroys the pseudonym keys of the given references (kind and SHA-256 of the value) at the
   * application; returns how many existed.
   */
  async shred(
    applicationId: string,
    references: ReadonlyArray<{ kind: PrincipalReference['kind']; valueSha256: string }>,
  ): Promise<number> {
    const digests = [...new Set(references.map((r) => referenceDigest(r.kind, r.valueSha256)))];
    if (digests.length === 0) return 0;
    const rows: unknown[] = await this.dataSource.query(
      `DELETE FROM receipts.subject_pseudonym_keys WHERE application_id = $1 AND reference_digest = ANY($2) RETURNING reference_digest`,
      [applicationId, digests],
    );
    return Array.isArray(rows[0]) ? (rows[0] as unknown[]).length : rows.length;
  }

  /**
   * The references' secrets, each created on first use. Written in a statement of its own (not the
   * caller's transaction): a secret must never be used and then rolled back.
   */
  private async secrets(wanted: ReadonlyArray<SecretKey>): Promise<Map<string, Buffer>> {
    // Sorted, so that two batches creating some of the same secrets take their row locks in one order (no deadlock).
    const unique = [...new Map(wanted.map((key) => [keyOf(key), key])).entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, key]) => key);
    const now = this.clock.now();
    // One round trip: the new secret where this statement created it, else the stored one (one
    // probe of the primary key per reference, whatever the table's statistics say).
    const rows: SecretRow[] = await this.dataSource.query(
      `WITH wanted AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[]) AS w(application_id, reference_digest, secret_encrypted)),
       created AS (
         INSERT INTO receipts.subject_pseudonym_keys (application_id, reference_digest, secret_encrypted, created_at)
         SELECT application_id, reference_digest, secret_encrypted, $4 FROM wanted
         ON CONFLICT (application_id, reference_digest) DO NOTHING RETURNING application_id, reference_digest, secret_encrypted)
       SELECT application_id, reference_digest, secret_encrypted FROM created
       UNION ALL
       SELECT w.application_id, w.reference_digest, k.secret_encrypted FROM wanted w
       CROSS JOIN LATERAL (
         SELECT secret_encrypted FROM receipts.subject_pseudonym_keys k
         WHERE k.application_id = w.application_id AND k.reference_digest = w.reference_digest LIMIT 1) k`,
      [
        unique.map((key) => key.applicationId),
        unique.map((key) => key.digest),
        unique.map((key) => this.kek.encrypt(randomBytes(32), aadOf(key))),
        now,
      ],
    );
    const secrets = new Map(rows.map((row) => [keyOf({ applicationId: row.application_id, digest: row.reference_digest }), row]));
    // A concurrent first use committed its secret after this statement's snapshot was taken (the
    // insert waited for it, then did nothing): a new statement reads the winners' secrets.
    const missing = unique.filter((key) => !secrets.has(keyOf(key)));
    if (missing.length > 0) {
      const late: SecretRow[] = await this.dataSource.query(
        `SELECT m.application_id, m.reference_digest, k.secret_encrypted FROM unnest($1::text[], $2::text[]) AS m(application_id, reference_digest)
         CROSS JOIN LATERAL (
           SELECT secret_encrypted FROM receipts.subject_pseudonym_keys k
           WHERE k.application_id = m.application_id AND k.reference_digest = m.reference_digest LIMIT 1) k`,
        [missing.map((key) => key.applicationId), missing.map((key) => key.digest)],
      );
      for (const row of late) secrets.set(keyOf({ applicationId: row.application_id, digest: row.reference_digest }), row);
    }
    return new Map(
      unique.map((key) => {
        const row = secrets.get(keyOf(key));
        if (!row) throw new Error('a pseudonym secret was neither created nor found');
        return [keyOf(key), this.kek.decrypt(row.secret_encrypted, aadOf(key))];
      }),
    );
  }
}

/** Where a secret is stored: the application and the reference's digest. */
interface SecretKey {
  applicationId: string;
  digest: string;
}

interface SecretRow {
  application_id: string;
  reference_digest: string;
  secret_encrypted: Buffer;
}

const keyOf = (key: SecretKey): string => `${key.applicationId}\n${key.digest}`;
/** The secret is bound to its application and reference: a row copied under another key does not decrypt. */
const aadOf = (key: SecretKey): string => `subject-pseudonym:${key.applicationId}:${key.digest}`;
