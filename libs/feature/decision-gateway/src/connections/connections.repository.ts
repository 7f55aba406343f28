import { Inject, Injectable } from '@nestjs/common';
import type { OutboxWriter } from '@svc/persistence';
import { queryRows } from '@svc/persistence';
import { DataSource } from 'typeorm';
import { GATEWAY_OUTBOX } from '../tokens';

/** An OAuth grant (oidc-provider's `Grant`) a person gave a client of an application. */
export interface PersonOAuthGrant {
  grantId: string;
  clientId: string;
  applicationId: string;
}

/** A delegation grant of the person, offered or active, on either side. */
export interface PersonDelegation {
  id: string;
  applicationId: string;
  type: string;
  status: string;
  role: 'principal' | 'delegate';
}

/** How long a revoked OAuth grant is remembered (as when its client is deleted). */
const REVOKED_GRANT_MEMORY = "interval '400 days'";

/** The gateway's side of a person's connections: OAuth grants and delegation grants. */
@Injectable()
export class ConnectionsRepository {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
  ) {}

  async oauthGrants(personId: string, applicationId?: string): Promise<PersonOAuthGrant[]> {
    const rows = await queryRows<{ grant_id: string; client_id: string; application_id: string }>(
      this.dataSource.manager,
      `SELECT m.id AS grant_id, c.client_id, c.application_id
       FROM gateway.oauth_models m JOIN gateway.oauth_clients c ON c.client_id = m.payload->>'clientId'
       WHERE m.model = 'Grant' AND m.payload->>'accountId' = $1 AND ($2::text IS NULL OR c.application_id = $2)
         AND (m.expires_at IS NULL OR m.expires_at > now())
         AND NOT EXISTS (SELECT 1 FROM gateway.oauth_revoked_grants r WHERE r.grant_id = m.id)
       ORDER BY c.application_id, m.id LIMIT 1000`,
      [personId, applicationId ?? null],
    );
    return rows.map((r) => ({ grantId: r.grant_id, clientId: r.client_id, applicationId: r.application_id }));
  }

  /**
   * Revokes whole OAuth grants as the provider's own grant revocation does: the grant is remembered
   * as revoked (so no token of it is honoured, even one written by a racing request), its codes and
   * tokens deleted, and `oauth.token_revoked` (token kind `grant`) written in the same transaction,
   * which the Shared Signals transmitter and webhooks follow.
   */
  async revokeOAuthGrants(personId: string, grants: readonly PersonOAuthGrant[], at: Date): Promise<void> {
    if (grants.length === 0) return;
    const ids = grants.map((g) => g.grantId);
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO gateway.oauth_revoked_grants (grant_id, expires_at) SELECT unnest($1::text[]), now() + ${REVOKED_GRANT_MEMORY} ON CONFLICT (grant_id) DO NOTHING`,
        [ids],
      );
      await manager.query(
        `DELETE FROM gateway.oauth_models WHERE grant_id = ANY($1::text[]) OR (model = 'Grant' AND id = ANY($1::text[]))`,
        [ids],
      );
      for (const grant of grants) {
        await this.outbox.add(
          manager,
          'oauth.token_revoked',
          { clientId: grant.clientId, personId, tokenKind: 'grant', grantId: grant.grantId, digestPrefix: '' },
          { applicationId: grant.applicationId, occurredAt: at },
        );
      }
    });
  }

  async delegations(personId: string, applicationId?: string): Promise<PersonDelegation[]> {
    const rows = await queryRows<{ id: string; application_id: string; type: string; status: string; principal_person_id: string }>(
      this.dataSource.manager,
      `SELECT id, application_id, type, status, principal_person_id FROM gateway.delegation_grants
       WHERE (principal_person_id = $1 OR delegate_person_id = $1) AND status IN ('offered', 'active') AND expires_at > now()
         AND ($2::text IS NULL OR application_id = $2)
       ORDER BY application_id, created_at, id LIMIT 1000`,
      [personId, applicationId ?? null],
    );
    return rows.map((r) => ({
      id: r.id,
      applicationId: r.application_id,
      type: r.type,
      status: r.status,
      role: r.principal_person_id === personId ? 'principal' : 'delegate',
    }));
  }
}
