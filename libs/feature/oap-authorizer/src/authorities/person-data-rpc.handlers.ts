import { Controller } from '@nestjs/common';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { Clock } from '@svc/config';
import { queryRows } from '@svc/persistence';
import { DataSource } from 'typeorm';

interface AuthorityRow {
  id: string;
  agent_id: string;
  principal_id: string;
  status: string;
  bounds_json: string;
  purposes: string[];
  valid_from: Date;
  valid_until: Date;
  created_at: Date;
  revoked_at: Date | null;
}

interface GrantRow {
  id: string;
  authority_id: string;
  agent_id: string;
  scopes: string[];
  actions: string[];
  amount: string | null;
  currency: string | null;
  status: string;
  created_at: Date;
  revoked_at: Date | null;
}

/**
 * `oap.person_data` (decision-gateway, fulfilling a data subject request): the authorities of one
 * application whose principal is the person (their `usr_` id, or a reference the application linked
 * to them, matched by digest) and the grants issued under them.
 *
 * - `export`: authorities (bounds, purposes, window, status) and their grants.
 * - `erase`: each authority is revoked and its principal replaced by `erased:<data request id>`:
 *   the agent's accounting (grants, usage totals, runtime receipts, which name the authority and
 *   the agent, not the person) is kept for the operator's obligations, the person is not.
 */
@Controller()
export class PersonDataRpcHandlers {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  @RpcHandler('oap.person_data')
  async personData(request: RpcRequest<'oap.person_data'>): Promise<RpcReplyInit<'oap.person_data'>> {
    const references = request.subjects
      .filter((s) => s.applicationId === request.applicationId && s.kind === 'external_id')
      .map((s) => s.valueSha256);
    const authorities: AuthorityRow[] = await queryRows(
      this.dataSource,
      `SELECT id, agent_id, principal_id, status, bounds_json, purposes, valid_from, valid_until, created_at, revoked_at FROM oap.authorities
        WHERE application_id = $1 AND (principal_id = $2 OR encode(sha256(convert_to(principal_id, 'UTF8')), 'hex') = ANY($3))
        ORDER BY created_at, id`,
      [request.applicationId, request.personId, references],
    );
    const authorityIds = authorities.map((a) => a.id);
    if (request.action === 'erase') {
      if (authorityIds.length > 0) {
        const now = this.clock.now();
        await this.dataSource.query(
          `UPDATE oap.authorities SET principal_id = $2, status = 'revoked', revoked_at = COALESCE(revoked_at, $3), updated_at = $3 WHERE id = ANY($1)`,
          [authorityIds, `erased:${request.dataRequestId}`, now],
        );
      }
      return { parts: [], recordIds: [], authorityIds, affected: authorityIds.length };
    }
    if (request.action !== 'export') return { parts: [], recordIds: [], authorityIds, affected: 0 };
    const grants: GrantRow[] =
      authorityIds.length === 0
        ? []
        : await queryRows(
            this.dataSource,
            `SELECT id, authority_id, agent_id, scopes, actions, amount::text AS amount, currency, status, created_at, revoked_at FROM oap.grants WHERE authority_id = ANY($1) ORDER BY created_at, id`,
            [authorityIds],
          );
    const authorityItems = authorities.map((a) => ({
      authority_id: a.id,
      agent_id: a.agent_id,
      principal_id: a.principal_id,
      status: a.status,
      bounds: JSON.parse(a.bounds_json) as unknown,
      purposes: a.purposes,
      valid_from: a.valid_from.toISOString(),
      valid_until: a.valid_until.toISOString(),
      created_at: a.created_at.toISOString(),
      revoked_at: a.revoked_at?.toISOString() ?? null,
    }));
    const grantItems = grants.map((g) => ({
      grant_id: g.id,
      authority_id: g.authority_id,
      agent_id: g.agent_id,
      scopes: g.scopes,
      actions: g.actions,
      amount: g.amount,
      currency: g.currency,
      status: g.status,
      created_at: g.created_at.toISOString(),
      revoked_at: g.revoked_at?.toISOString() ?? null,
    }));
    return {
      parts: [
        { name: 'oap-authorizer/authorities', itemsJson: JSON.stringify(authorityItems) },
        { name: 'oap-authorizer/grants', itemsJson: JSON.stringify(grantItems) },
      ],
      recordIds: [],
      authorityIds,
      affected: 0,
    };
  }
}
