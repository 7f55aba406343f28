import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { CredentialType } from './issuer-identity';

/** An issued credential as the issuer keeps it: enough to list and revoke it, none of its claims. */
export interface IssuedCredential {
  id: string;
  applicationId: string;
  credentialType: CredentialType;
  subjectRef: string;
  holderJkt: string;
  statusListId: string;
  statusIndex: number;
  issuedAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  revocationReason: string | null;
}

/** A credential offer (OpenID4VCI pre-authorized code), by the digest of its code or token. */
export interface CredentialOffer {
  id: string;
  applicationId: string;
  credentialType: CredentialType;
  subjectRef: string;
  claims: Record<string, unknown>;
  codeExpiresAt: Date;
  tokenSha256: string | null;
  tokenExpiresAt: Date | null;
  issuedCredentialId: string | null;
}

interface CredentialRow {
  id: string;
  application_id: string;
  credential_type: CredentialType;
  subject_ref: string;
  holder_jkt: string;
  status_list_id: string;
  status_index: number;
  issued_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  revocation_reason: string | null;
}

interface OfferRow {
  id: string;
  application_id: string;
  credential_type: CredentialType;
  subject_ref: string;
  claims: Record<string, unknown>;
  code_expires_at: Date;
  token_sha256: string | null;
  token_expires_at: Date | null;
  issued_credential_id: string | null;
}

const CREDENTIAL_COLUMNS =
  'id, application_id, credential_type, subject_ref, holder_jkt, status_list_id, status_index, issued_at, expires_at, revoked_at, revocation_reason';
const OFFER_COLUMNS =
  'id, application_id, credential_type, subject_ref, claims, code_expires_at, token_sha256, token_expires_at, issued_credential_id';

function toCredential(row: CredentialRow): IssuedCredential {
  return {
    id: row.id,
    applicationId: row.application_id,
    credentialType: row.credential_type,
    subjectRef: row.subject_ref,
    holderJkt: row.holder_jkt,
    statusListId: row.status_list_id,
    statusIndex: row.status_index,
    issuedAt: row.issued_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    revocationReason: row.revocation_reason,
  };
}

function toOffer(row: OfferRow): CredentialOffer {
  return {
    id: row.id,
    applicationId: row.application_id,
    credentialType: row.credential_type,
    subjectRef: row.subject_ref,
    claims: row.claims,
    codeExpiresAt: row.code_expires_at,
    tokenSha256: row.token_sha256,
    tokenExpiresAt: row.token_expires_at,
    issuedCredentialId: row.issued_credential_id,
  };
}

/** Queries of issued credentials, offers and nonces (receipts schema). */
@Injectable()
export class CredentialsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insertOffer(offer: CredentialOffer, codeSha256: string, at: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO receipts.credential_offers (id, application_id, credential_type, subject_ref, claims, code_sha256, code_expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        offer.id,
        offer.applicationId,
        offer.credentialType,
        offer.subjectRef,
        JSON.stringify(offer.claims),
        codeSha256,
        offer.codeExpiresAt,
        at,
      ],
    );
  }

  /**
   * Redeems a pre-authorized code once: binds the access token's digest to the offer if the code is
   * unexpired and not yet redeemed. Undefined otherwise (unknown, expired or replayed code).
   */
  async redeemCode(codeSha256: string, tokenSha256: string, tokenExpiresAt: Date, now: Date): Promise<CredentialOffer | undefined> {
    const rows = await queryRows<OfferRow>(
      this.dataSource,
      `UPDATE receipts.credential_offers SET token_sha256 = $2, token_expires_at = $3
       WHERE code_sha256 = $1 AND token_sha256 IS NULL AND code_expires_at > $4 RETURNING ${OFFER_COLUMNS}`,
      [codeSha256, tokenSha256, tokenExpiresAt, now],
    );
    return rows[0] ? toOffer(rows[0]) : undefined;
  }

  /** The offer an unexpired access token was issued for, locked for issuance. */
  async offerByToken(manager: EntityManager, tokenSha256: string, now: Date): Promise<CredentialOffer | undefined> {
    const rows: OfferRow[] = await manager.query(
      `SELECT ${OFFER_COLUMNS} FROM receipts.credential_offers WHERE token_sha256 = $1 AND token_expires_at > $2 FOR UPDATE`,
      [tokenSha256, now],
    );
    return rows[0] ? toOffer(rows[0]) : undefined;
  }

  async markOfferIssued(manager: EntityManager, offerId: string, credentialId: string): Promise<void> {
    await manager.query(`UPDATE receipts.credential_offers SET issued_credential_id = $2 WHERE id = $1`, [offerId, credentialId]);
  }

  async insertNonce(nonceSha256: string, expiresAt: Date, now: Date): Promise<void> {
    await this.dataSource.query(`DELETE FROM receipts.credential_nonces WHERE expires_at <= $1`, [now]);
    await this.dataSource.query(`INSERT INTO receipts.credential_nonces (nonce_sha256, expires_at) VALUES ($1, $2)`, [
      nonceSha256,
      expiresAt,
    ]);
  }

  /** Consumes a nonce once; false when unknown, expired or already used. */
  async consumeNonce(manager: EntityManager, nonceSha256: string, now: Date): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `DELETE FROM receipts.credential_nonces WHERE nonce_sha256 = $1 AND expires_at > $2 RETURNING nonce_sha256`,
      [nonceSha256, now],
    );
    return rows.length > 0;
  }

  /** Records an agent registration once (the event may be redelivered). */
  async recordAgent(
    manager: EntityManager,
    agent: { agentId: string; applicationId: string; agentType: string; registeredAt: Date },
  ): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `INSERT INTO receipts.registered_agents (agent_id, application_id, agent_type, registered_at) VALUES ($1, $2, $3, $4) ON CONFLICT (agent_id) DO NOTHING RETURNING agent_id`,
      [agent.agentId, agent.applicationId, agent.agentType, agent.registeredAt],
    );
    return rows.length > 0;
  }

  /** The application's registered agent, or undefined (unknown, or another application's). */
  async registeredAgent(applicationId: string, agentId: string): Promise<{ agentType: string; registeredAt: Date } | undefined> {
    const rows: Array<{ agent_type: string; registered_at: Date }> = await this.dataSource.query(
      `SELECT agent_type, registered_at FROM receipts.registered_agents WHERE agent_id = $1 AND application_id = $2`,
      [agentId, applicationId],
    );
    return rows[0] ? { agentType: rows[0].agent_type, registeredAt: rows[0].registered_at } : undefined;
  }

  /** Records an authority granted in the region once (the event may be redelivered). */
  async recordAuthority(
    manager: EntityManager,
    authority: {
      authorityId: string;
      applicationId: string;
      principalSha256: string;
      agentId: string;
      grantedAt: Date;
      validUntil: Date | null;
    },
  ): Promise<void> {
    await manager.query(
      `INSERT INTO receipts.credential_authorities (authority_id, application_id, principal_sha256, agent_id, granted_at, valid_until) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (authority_id) DO NOTHING`,
      [
        authority.authorityId,
        authority.applicationId,
        authority.principalSha256,
        authority.agentId,
        authority.grantedAt,
        authority.validUntil,
      ],
    );
  }

  /** Marks an authority revoked (it stays so: a revoked authority is never resumed). */
  async markAuthorityRevoked(manager: EntityManager, authorityId: string, at: Date): Promise<void> {
    await manager.query(`UPDATE receipts.credential_authorities SET revoked_at = coalesce(revoked_at, $2) WHERE authority_id = $1`, [
      authorityId,
      at,
    ]);
  }

  /** The application's authority as receipts learnt it, or undefined (unknown, or another application's). */
  async authority(
    applicationId: string,
    authorityId: string,
  ): Promise<{ principalSha256: string; agentId: string; revokedAt: Date | null } | undefined> {
    const rows: Array<{ principal_sha256: string; agent_id: string; revoked_at: Date | null }> = await this.dataSource.query(
      `SELECT principal_sha256, agent_id, revoked_at FROM receipts.credential_authorities WHERE authority_id = $1 AND application_id = $2`,
      [authorityId, applicationId],
    );
    const row = rows[0];
    return row ? { principalSha256: row.principal_sha256, agentId: row.agent_id, revokedAt: row.revoked_at } : undefined;
  }

  async insertCredential(manager: EntityManager, credential: IssuedCredential): Promise<void> {
    await manager.query(
      `INSERT INTO receipts.credentials (id, application_id, credential_type, subject_ref, holder_jkt, status_list_id, status_index, issued_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        credential.id,
        credential.applicationId,
        credential.credentialType,
        credential.subjectRef,
        credential.holderJkt,
        credential.statusListId,
        credential.statusIndex,
        credential.issuedAt,
        credential.expiresAt,
      ],
    );
  }

  async find(id: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<IssuedCredential | undefined> {
    const rows: CredentialRow[] = await manager.query(
      `SELECT ${CREDENTIAL_COLUMNS} FROM receipts.credentials WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ? toCredential(rows[0]) : undefined;
  }

  async list(applicationId: string, limit: number, after?: { issuedAt: string; id: string }): Promise<IssuedCredential[]> {
    const rows: CredentialRow[] = await this.dataSource.query(
      `SELECT ${CREDENTIAL_COLUMNS} FROM receipts.credentials WHERE application_id = $1
         AND ($2::timestamptz IS NULL OR (issued_at, id) > ($2::timestamptz, $3))
       ORDER BY issued_at, id LIMIT $4`,
      [applicationId, after?.issuedAt ?? null, after?.id ?? '', limit],
    );
    return rows.map(toCredential);
  }

  /** Marks unrevoked credentials revoked; returns those it revoked. */
  async revoke(
    manager: EntityManager,
    where: { id: string } | { applicationId: string; credentialType: CredentialType; subjectRef: string },
    reason: string,
    at: Date,
  ): Promise<IssuedCredential[]> {
    const rows =
      'id' in where
        ? await queryRows<CredentialRow>(
            manager,
            `UPDATE receipts.credentials SET revoked_at = $2, revocation_reason = $3 WHERE id = $1 AND revoked_at IS NULL RETURNING ${CREDENTIAL_COLUMNS}`,
            [where.id, at, reason],
          )
        : await queryRows<CredentialRow>(
            manager,
            `UPDATE receipts.credentials SET revoked_at = $4, revocation_reason = $5
             WHERE application_id = $1 AND credential_type = $2 AND subject_ref = $3 AND revoked_at IS NULL RETURNING ${CREDENTIAL_COLUMNS}`,
            [where.applicationId, where.credentialType, where.subjectRef, at, reason],
          );
    return rows.map(toCredential);
  }
}
