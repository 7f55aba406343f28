import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { Agent } from '../agents/agent';
import { AGENT_COLUMNS, toAgent, type AgentRow } from '../agents/agent-row';
import type { Authority } from '../authorities/authority';
import { AUTHORITY_COLUMNS, toAuthority, type AuthorityRow } from '../authorities/authority-row';
import type { GrantHistory } from './checks/cascade-step';
import type { HistoryNeeds } from './checks/history-needs';
import type { Grant } from './grant';

interface GrantRow {
  id: string;
  application_id: string;
  agent_id: string;
  authority_id: string;
  scopes: string[];
  actions: string[];
  amount: string | null;
  currency: string | null;
  dpop_jkt: string;
  valid_until: Date;
  status: 'active' | 'revoked';
  receipt_jti: string;
  receipt: string;
  created_at: Date;
  revoked_at: Date | null;
  consumed_at: Date | null;
}

const COLUMNS = 'id, application_id, agent_id, authority_id, scopes, actions, amount::text AS amount, currency, dpop_jkt, valid_until, status, receipt_jti, receipt, created_at, revoked_at, consumed_at';

function toGrant(row: GrantRow): Grant {
  return {
    id: row.id,
    applicationId: row.application_id,
    agentId: row.agent_id,
    authorityId: row.authority_id,
    scopes: row.scopes,
    actions: row.actions,
    amount: row.amount,
    currency: row.currency,
    dpopJkt: row.dpop_jkt,
    validUntil: row.valid_until,
    status: row.status,
    receiptJti: row.receipt_jti,
    receipt: row.receipt,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    consumedAt: row.consumed_at,
  };
}

/** A decision row (every allow, deny and escalate is recorded). */
export interface DecisionRecord {
  id: string;
  applicationId: string;
  agentId: string;
  authorityId: string | null;
  decision: 'allow' | 'deny' | 'escalate';
  denialCategory: string | null;
  cascadeStep: number | null;
  reasonCode: string | null;
  grantId: string | null;
  escalationId: string | null;
  contextHash: string;
  createdAt: Date;
}

/** A grant row to insert: the grant, its token digest, context hash and canonical request. */
export interface GrantInsert {
  grant: Omit<Grant, 'status' | 'revokedAt' | 'consumedAt'>;
  tokenSha256: string;
  contextHash: string;
  requestJson: string;
}

/** An attestation JWT kept retrievable by its receipt's jti. */
export interface AttestationTokenInsert {
  receiptJti: string;
  grantId: string;
  format: string;
  token: string;
  claimsDigest: string;
  createdAt: Date;
  retainUntil: Date;
}

/** An agent with the hash of its current capability manifest (null when none). */
export interface AgentSnapshot {
  agent: Agent;
  manifestSha256: string | null;
}

type AgentSnapshotRow = AgentRow & { manifest_sha256: string | null };

const GRANT_INSERT_COLUMNS = 'id, application_id, agent_id, authority_id, scopes, actions, amount, currency, dpop_jkt, agent_token_sha256, valid_until, receipt_jti, receipt, context_hash, created_at, request_json';
const DECISION_INSERT_COLUMNS = 'id, application_id, agent_id, authority_id, decision, denial_category, cascade_step, reason_code, grant_id, escalation_id, context_hash, created_at';

/** `VALUES ($1, …), (…)` for rows of equal width, and the flattened parameters. */
function valuesList(rows: ReadonlyArray<readonly unknown[]>): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const tuples = rows.map((row) => `(${row.map((value) => `$${params.push(value)}`).join(', ')})`);
  return { sql: `VALUES ${tuples.join(', ')}`, params };
}

function grantValues(row: GrantInsert): unknown[] {
  const { grant } = row;
  return [
    grant.id,
    grant.applicationId,
    grant.agentId,
    grant.authorityId,
    grant.scopes,
    grant.actions,
    grant.amount,
    grant.currency,
    grant.dpopJkt,
    row.tokenSha256,
    grant.validUntil,
    grant.receiptJti,
    grant.receipt,
    row.contextHash,
    grant.createdAt,
    row.requestJson,
  ];
}

function decisionValues(decision: DecisionRecord): unknown[] {
  return [
    decision.id,
    decision.applicationId,
    decision.agentId,
    decision.authorityId,
    decision.decision,
    decision.denialCategory,
    decision.cascadeStep,
    decision.reasonCode,
    decision.grantId,
    decision.escalationId,
    decision.contextHash,
    decision.createdAt,
  ];
}


/** Queries of grants and decisions. */
@Injectable()
export class GrantsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Locks the authority row for the rest of the transaction: grants under one authority serialise. */
  async lockAuthority(manager: EntityManager, authorityId: string): Promise<void> {
    await manager.query(`SELECT id FROM oap.authorities WHERE id = $1 FOR UPDATE`, [authorityId]);
  }

  /** What was granted under the authority (see GrantHistory), in one round trip. */
  async history(manager: EntityManager, authorityId: string, currency: string | null, now: Date): Promise<GrantHistory> {
    const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
    const hour = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000);
    const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const rows: Array<{ total: number; last_minute: number; b_minute: number; b_hour: number; b_day: number; aggregate: string; recent: string[]; granted: string[] }> = await manager.query(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE created_at > $2::timestamptz - interval '1 minute')::int AS last_minute,
              count(*) FILTER (WHERE created_at >= $3)::int AS b_minute,
              count(*) FILTER (WHERE created_at >= $4)::int AS b_hour,
              count(*) FILTER (WHERE created_at >= $5)::int AS b_day,
              COALESCE(sum(amount) FILTER (WHERE currency = $6), 0)::text AS aggregate,
              ARRAY(SELECT g2.actions[1] FROM oap.grants g2 WHERE g2.authority_id = $1 ORDER BY g2.created_at DESC, g2.id DESC LIMIT 64) AS recent,
              ARRAY(SELECT DISTINCT unnest(g3.actions) FROM oap.grants g3 WHERE g3.authority_id = $1) AS granted
       FROM oap.grants WHERE authority_id = $1`,
      [authorityId, now, minute, hour, day, currency],
    );
    const row = rows[0]!;
    return {
      total: row.total,
      lastMinute: row.last_minute,
      buckets: { minute: row.b_minute, hour: row.b_hour, day: row.b_day },
      aggregate: row.aggregate,
      recentActions: row.recent,
      grantedActions: new Set(row.granted),
    };
  }

  /** Agents of a batch with their current manifest hash, in one round trip. */
  async agentSnapshots(agentIds: readonly string[], manager: EntityManager = this.dataSource.manager): Promise<Map<string, AgentSnapshot>> {
    const rows: AgentSnapshotRow[] = await manager.query(
      `SELECT ${prefixed('a', AGENT_COLUMNS)}, v.manifest_sha256
       FROM oap.agents a LEFT JOIN oap.capability_versions v ON v.version_id = a.current_version_id WHERE a.id = ANY($1::text[])`,
      [agentIds],
    );
    return new Map(
      rows.map((row) => [
        row.id,
        {
          agent: toAgent(row),
          manifestSha256: row.manifest_sha256,
        },
      ]),
    );
  }

  /**
   * Locks and reads, in id order (no deadlock between batches), the authorities of a batch's
   * agents that its requests may use: the named ones and, for requests naming none, the agent's
   * non-revoked ones. The rows are current for the rest of the transaction, and grants under one
   * authority serialise. An authority of another agent is never locked (nor usable).
   */
  async lockAuthorities(manager: EntityManager, batch: { named: readonly string[]; unnamedAgentIds: readonly string[]; agentIds: readonly string[] }): Promise<Authority[]> {
    const rows: AuthorityRow[] = await manager.query(
      `SELECT ${AUTHORITY_COLUMNS}
       FROM oap.authorities
       WHERE agent_id = ANY($3::text[]) AND (id = ANY($1::text[]) OR (agent_id = ANY($2::text[]) AND status <> 'revoked'))
       ORDER BY id FOR UPDATE`,
      [batch.named, batch.unnamedAgentIds, batch.agentIds],
    );
    return rows.map(toAuthority);
  }

  /**
   * The GrantHistory of several authorities in one round trip; the parts of {@link HistoryNeeds}
   * are computed only when the authority's bounds read them (zero / empty otherwise).
   */
  async histories(manager: EntityManager, requests: ReadonlyArray<{ authorityId: string; currency: string | null; needs: HistoryNeeds }>, now: Date): Promise<Map<string, GrantHistory>> {
    if (requests.length === 0) return new Map();
    const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
    const hour = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000);
    const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const column = <T>(pick: (request: (typeof requests)[number]) => T) => requests.map(pick);
    const rows: Array<{ authority_id: string; total: number; last_minute: number; b_minute: number; b_hour: number; b_day: number; aggregate: string; recent: string[]; granted: string[] }> = await manager.query(
      `SELECT q.authority_id,
              CASE WHEN q.total THEN (SELECT count(*) FROM oap.grants g WHERE g.authority_id = q.authority_id) ELSE 0 END::int AS total,
              CASE WHEN q.last_minute THEN (SELECT count(*) FROM oap.grants g WHERE g.authority_id = q.authority_id AND g.created_at > $1::timestamptz - interval '1 minute') ELSE 0 END::int AS last_minute,
              b.b_minute, b.b_hour, b.b_day,
              CASE WHEN q.aggregate THEN (SELECT COALESCE(sum(g.amount), 0) FROM oap.grants g WHERE g.authority_id = q.authority_id AND g.currency = q.currency) ELSE 0 END::text AS aggregate,
              ARRAY(SELECT g.actions[1] FROM oap.grants g WHERE g.authority_id = q.authority_id ORDER BY g.created_at DESC, g.id DESC LIMIT 64) AS recent,
              CASE WHEN q.granted THEN ARRAY(SELECT DISTINCT unnest(g.actions) FROM oap.grants g WHERE g.authority_id = q.authority_id) ELSE '{}'::text[] END AS granted
       FROM unnest($5::text[], $6::text[], $7::bool[], $8::bool[], $9::bool[], $10::bool[], $11::bool[]) AS q(authority_id, currency, total, last_minute, buckets, aggregate, granted)
       CROSS JOIN LATERAL (
         SELECT count(*) FILTER (WHERE g.created_at >= $2)::int AS b_minute,
                count(*) FILTER (WHERE g.created_at >= $3)::int AS b_hour,
                count(*)::int AS b_day
         FROM oap.grants g WHERE q.buckets AND g.authority_id = q.authority_id AND g.created_at >= $4
       ) b`,
      [
        now,
        minute,
        hour,
        day,
        column((r) => r.authorityId),
        column((r) => r.currency),
        column((r) => r.needs.total),
        column((r) => r.needs.lastMinute),
        column((r) => r.needs.buckets),
        column((r) => r.needs.aggregate),
        column((r) => r.needs.grantedActions),
      ],
    );
    return new Map(
      rows.map((row) => [
        row.authority_id,
        {
          total: row.total,
          lastMinute: row.last_minute,
          buckets: { minute: row.b_minute, hour: row.b_hour, day: row.b_day },
          aggregate: row.aggregate,
          recentActions: row.recent,
          grantedActions: new Set(row.granted),
        },
      ]),
    );
  }

  /** The rows of a batch's outcomes (grants, their attestation tokens, decisions) in one statement. */
  async insertOutcomes(manager: EntityManager, rows: { grants: readonly GrantInsert[]; attestations: readonly AttestationTokenInsert[]; decisions: readonly DecisionRecord[] }): Promise<void> {
    const params: unknown[] = [];
    const tuples = (values: ReadonlyArray<readonly unknown[]>) => values.map((row) => `(${row.map((value) => `$${params.push(value)}`).join(', ')})`).join(', ');
    const inserts: string[] = [];
    if (rows.grants.length > 0) inserts.push(`INSERT INTO oap.grants (${GRANT_INSERT_COLUMNS}) VALUES ${tuples(rows.grants.map(grantValues))}`);
    if (rows.attestations.length > 0) {
      inserts.push(
        `INSERT INTO oap.attestation_tokens (receipt_jti, grant_id, format, token, claims_digest, created_at, retain_until) VALUES ${tuples(
          rows.attestations.map((row) => [row.receiptJti, row.grantId, row.format, row.token, row.claimsDigest, row.createdAt, row.retainUntil]),
        )}`,
      );
    }
    if (rows.decisions.length > 0) inserts.push(`INSERT INTO oap.decisions (${DECISION_INSERT_COLUMNS}) VALUES ${tuples(rows.decisions.map(decisionValues))}`);
    if (inserts.length === 0) return;
    const [last, ...before] = inserts.reverse();
    const sql = before.length === 0 ? last! : `WITH ${before.map((insert, index) => `w${index} AS (${insert})`).join(', ')} ${last!}`;
    await manager.query(sql, params);
  }

  async insertGrant(manager: EntityManager, grant: Omit<Grant, 'status' | 'revokedAt' | 'consumedAt'>, tokenSha256: string, contextHash: string, requestJson: string): Promise<void> {
    await this.insertGrants(manager, [{ grant, tokenSha256, contextHash, requestJson }]);
  }

  /** Several grant rows in one statement. */
  async insertGrants(manager: EntityManager, rows: readonly GrantInsert[]): Promise<void> {
    if (rows.length === 0) return;
    const values = valuesList(rows.map(grantValues));
    await manager.query(`INSERT INTO oap.grants (${GRANT_INSERT_COLUMNS}) ${values.sql}`, values.params);
  }

  async insertDecision(manager: EntityManager, decision: DecisionRecord): Promise<void> {
    await this.insertDecisions(manager, [decision]);
  }

  /** Several decision rows in one statement. */
  async insertDecisions(manager: EntityManager, decisions: readonly DecisionRecord[]): Promise<void> {
    if (decisions.length === 0) return;
    const values = valuesList(decisions.map(decisionValues));
    await manager.query(`INSERT INTO oap.decisions (${DECISION_INSERT_COLUMNS}) ${values.sql}`, values.params);
  }

  /** Keeps an attestation JWT retrievable by its receipt's jti (the receipt never carries it). */
  async insertAttestationToken(manager: EntityManager, row: AttestationTokenInsert): Promise<void> {
    await this.insertAttestationTokens(manager, [row]);
  }

  /** Several attestation tokens in one statement. */
  async insertAttestationTokens(manager: EntityManager, rows: readonly AttestationTokenInsert[]): Promise<void> {
    if (rows.length === 0) return;
    const values = valuesList(rows.map((row) => [row.receiptJti, row.grantId, row.format, row.token, row.claimsDigest, row.createdAt, row.retainUntil]));
    await manager.query(`INSERT INTO oap.attestation_tokens (receipt_jti, grant_id, format, token, claims_digest, created_at, retain_until) ${values.sql}`, values.params);
  }

  /** The attestation stored under a receipt jti. */
  async findAttestationToken(receiptJti: string): Promise<{ format: string; token: string; claimsDigest: string; retainUntil: Date } | undefined> {
    const rows: Array<{ format: string; token: string; claims_digest: string; retain_until: Date }> = await this.dataSource.query(
      `SELECT format, token, claims_digest, retain_until FROM oap.attestation_tokens WHERE receipt_jti = $1`,
      [receiptJti],
    );
    const row = rows[0];
    return row ? { format: row.format, token: row.token, claimsDigest: row.claims_digest, retainUntil: row.retain_until } : undefined;
  }

  /** The latest attestation claims digest of a grant (identity comparison on refresh). */
  async latestAttestationToken(grantId: string): Promise<string | undefined> {
    const rows: Array<{ token: string }> = await this.dataSource.query(`SELECT token FROM oap.attestation_tokens WHERE grant_id = $1 ORDER BY created_at DESC LIMIT 1`, [grantId]);
    return rows[0]?.token;
  }

  async find(id: string, manager: EntityManager = this.dataSource.manager): Promise<Grant | undefined> {
    const rows: GrantRow[] = await manager.query(`SELECT ${COLUMNS} FROM oap.grants WHERE id = $1`, [id]);
    return rows[0] ? toGrant(rows[0]) : undefined;
  }

  async findByTokenDigest(sha256: string): Promise<Grant | undefined> {
    const rows: GrantRow[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM oap.grants WHERE agent_token_sha256 = $1`, [sha256]);
    return rows[0] ? toGrant(rows[0]) : undefined;
  }

  /** The canonical grant request a grant was issued for. */
  async requestJson(id: string): Promise<string | undefined> {
    const rows: Array<{ request_json: string }> = await this.dataSource.query(`SELECT request_json FROM oap.grants WHERE id = $1`, [id]);
    return rows[0]?.request_json;
  }

  /** Points a grant at its latest receipt (attestation refresh). */
  async replaceReceipt(manager: EntityManager, id: string, receiptJti: string, receipt: string): Promise<void> {
    await manager.query(`UPDATE oap.grants SET receipt_jti = $2, receipt = $3 WHERE id = $1`, [id, receiptJti, receipt]);
  }

  /** Marks a grant revoked; undefined when unknown, the grant unchanged when already revoked. */
  async revoke(manager: EntityManager, id: string, at: Date): Promise<{ grant: Grant; changed: boolean } | undefined> {
    const rows = await queryRows<GrantRow>(manager, `UPDATE oap.grants SET status = 'revoked', revoked_at = $2 WHERE id = $1 AND status = 'active' RETURNING ${COLUMNS}`, [id, at]);
    if (rows[0]) return { grant: toGrant(rows[0]), changed: true };
    const existing = await this.find(id, manager);
    return existing ? { grant: existing, changed: false } : undefined;
  }

  /** One-shot consumption (svc-verify with action_completed); false when already consumed. */
  async consume(id: string, at: Date): Promise<boolean> {
    const rows = await queryRows(this.dataSource.manager, `UPDATE oap.grants SET consumed_at = $2 WHERE id = $1 AND consumed_at IS NULL RETURNING id`, [id, at]);
    return rows.length > 0;
  }

  async countDecisions(agentId: string): Promise<number> {
    const rows: Array<{ n: number }> = await this.dataSource.query(`SELECT count(*)::int AS n FROM oap.decisions WHERE agent_id = $1`, [agentId]);
    return rows[0]?.n ?? 0;
  }
}

/** `a.id, a.name, …`: a column list qualified with a table alias. */
function prefixed(alias: string, columns: string): string {
  return columns.split(', ').map((column) => `${alias}.${column}`).join(', ');
}
