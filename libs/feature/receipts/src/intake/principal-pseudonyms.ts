import { createHmac, randomBytes } from 'node:crypto';
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

/** `psn_` + base64url(HMAC-SHA256(secret, "<kind>:<value>")): stable per application, not reversible without the secret. */
export function derivePseudonym(secret: Buffer, reference: PrincipalReference): string {
  return PSEUDONYM_PREFIX + createHmac('sha256', secret).update(`${reference.kind}:${reference.value}`, 'utf8').digest('base64url');
}

/**
 * `pii_principal_id` of receipts frozen from other services' events. A receipt travels to the
 * person, the organisation and anyone they hand it to, so it never carries the raw subject
 * reference (an email is guessable: a plain hash of it could be confirmed by anyone). Instead each
 * application gets a random secret, stored encrypted under the key-encryption key, and the
 * principal id is a keyed hash of the reference: the same person (same reference) gets the same id
 * in every receipt of that application; other applications' receipts cannot be linked to it.
 */
@Injectable()
export class PrincipalPseudonyms {
  private readonly secrets = new Map<string, Buffer>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly kek: KeyEncryption,
    private readonly clock: Clock,
  ) {}

  async pseudonym(applicationId: string, reference: PrincipalReference): Promise<string> {
    return derivePseudonym(await this.secret(applicationId), reference);
  }

  /**
   * The application's secret, created on first use. Written in its own statement (not the caller's
   * transaction): a secret must never be used, cached, and then rolled back.
   */
  private async secret(applicationId: string): Promise<Buffer> {
    const cached = this.secrets.get(applicationId);
    if (cached) return cached;
    const aad = `principal-pseudonym:${applicationId}`;
    // Concurrent first uses race on the insert; the loser reads the winner's secret.
    await this.dataSource.query(
      `INSERT INTO receipts.principal_pseudonym_keys (application_id, secret_encrypted, created_at) VALUES ($1, $2, $3) ON CONFLICT (application_id) DO NOTHING`,
      [applicationId, this.kek.encrypt(randomBytes(32), aad), this.clock.now()],
    );
    const rows: Array<{ secret_encrypted: Buffer }> = await this.dataSource.query(`SELECT secret_encrypted FROM receipts.principal_pseudonym_keys WHERE application_id = $1`, [applicationId]);
    const secret = this.kek.decrypt(rows[0]!.secret_encrypted, aad);
    this.secrets.set(applicationId, secret);
    return secret;
  }
}
