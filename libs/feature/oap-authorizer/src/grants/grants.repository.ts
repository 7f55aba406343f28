import { Injectable } from '@nestjs/common';
import { combinedWrite, queryRows, type WritePart } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { Agent } from '../agents/agent';
import { AGENT_COLUMNS, toAgent, type AgentRow } from '../agents/agent-row';
import type { Authority } from '../authorities/authority';
import { AUTHORITY_COLUMNS, toAuthority, type AuthorityRow } from '../authorities/authority-row';
import type { GrantHistory } from './checks/cascade-step';
import { utcMonthStart, type HistoryNeeds } from './checks/history-needs';
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

const COLUMNS =
  'id, application_id, agent_id, authority_id, scopes, actions, amount::text AS amount, currency, dpop_jkt, valid_until, status, receipt_jti, receipt, created_at, revoked_at, consumed_at';

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

const GRANT_INSERT_COLUMNS =
  'id, application_id, agent_id, authority_id, scopes, actions, amount, currency, dpop_jkt, agent_token_sha256, valid_until, receipt_jti, receipt, context_hash, created_at, request_json';
const DECISION_INSERT_COLUMNS =
  'id, application_id, agent_id, authority_id, decision, denial_category, cascade_step, reason_code, grant_id, escalation_id, context_hash, created_at';

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

/** How many recent actions a GrantHistory carries. */
export const RECENT_ACTIONS = 64;

/** What an authority's grants added up to so far (oap.authority_usage), read with its lock. */
export interface AuthorityUsage {
  /** Grants ever inserted under the authority (revoked ones included). */
  total: number;
  /** Exact decimal sums of granted amounts by currency. */
  amounts: Readonly<Record<string, string>>;
  grantedActions: readonly string[];
}

/** A locked authority and its running usage. */
export interface LockedAuthority {
  authority: Authority;
  usage: AuthorityUsage;
}

/**
 * The grant insert (VALUES `tuples`, which take `seq` in order) and the upserts of its authorities'
 * usage from the inserted rows: one row per authority and per (authority, currency), so no row is
 * updated twice by one statement.
 */
function grantWrites(tuples: string): Array<{ name: string; sql: string }> {
  return [
    {
      name: 'grants_inserted',
      sql: `INSERT INTO oap.grants (${GRANT_INSERT_COLUMNS}) VALUES ${tuples} RETURNING authority_id, actions, amount, currency`,
    },
    {
      name: 'grants_usage',
      sql: `INSERT INTO oap.authority_usage AS u (authority_id, total_grants, granted_actions)
     SELECT n.authority_id, count(*), ARRAY(SELECT DISTINCT action FROM grants_inserted g CROSS JOIN LATERAL unnest(g.actions) AS action WHERE g.authority_id = n.authority_id ORDER BY action)
     FROM grants_inserted n GROUP BY n.authority_id
     ON CONFLICT (authority_id) DO UPDATE SET
       total_grants = u.total_grants + excluded.total_grants,
       granted_actions = CASE WHEN excluded.granted_actions <@ u.granted_actions THEN u.granted_actions
                              ELSE ARRAY(SELECT DISTINCT action FROM unnest(u.granted_actions || excluded.granted_actions) AS action ORDER BY action) END`,
    },
    {
      name: 'grants_usage_amounts',
      sql: `INSERT INTO oap.authority_usage_amounts AS m (authority_id, currency, amount)
     SELECT authority_id, currency, sum(amount) FROM grants_inserted WHERE amount IS NOT NULL AND currency IS NOT NULL GROUP BY authority_id, currency
     ON CONFLICT (authority_id, currency) DO UPDATE SET amount = m.amount + excluded.amount`,
    },
  ];
}

/** The outcome rows of a batch (see {@link GrantsRepository.outcomesPart}). */
export interface OutcomeRows {
  grants: readonly GrantInsert[];
  attestations: readonly AttestationTokenInsert[];
  decisions: readonly DecisionRecord[];
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
   * non-revoked, non-declined ones (a declined proposal never makes the choice ambiguous), each with its running usage. The rows are current for the rest of the
   * transaction, and grants under one authority serialise. An authority of another agent is never
   * locked (nor usable).
   */
  async lockAuthorities(
    manager: EntityManager,
    batch: { named: readonly string[]; unnamedAgentIds: readonly string[]; agentIds: readonly string[] },
  ): Promise<LockedAuthority[]> {
    const rows: Array<
      AuthorityRow & { usage_total: string | null; usage_actions: string[] | null; usage_amounts: Record<string, string> | null }
    > = await manager.query(
      `SELECT ${prefixed('a', AUTHORITY_COLUMNS)},
              (SELECT u.total_grants FROM oap.authority_usage u WHERE u.authority_id = a.id) AS usage_total,
              (SELECT u.granted_actions FROM oap.authority_usage u WHERE u.authority_id = a.id) AS usage_actions,
              (SELECT jsonb_object_agg(m.currency, m.amount::text) FROM oap.authority_usage_amounts m WHERE m.authority_id = a.id) AS usage_amounts
       FROM oap.authorities a
       WHERE a.agent_id = ANY($3::text[]) AND (a.id = ANY($1::text[]) OR (a.agent_id = ANY($2::text[]) AND a.status NOT IN ('revoked', 'declined')))
       ORDER BY a.id FOR UPDATE OF a`,
      [batch.named, batch.unnamedAgentIds, batch.agentIds],
    );
    return rows.map((row) => ({
      authority: toAuthority(row),
      usage: { total: Number(row.usage_total ?? 0), grantedActions: row.usage_actions ?? [], amounts: row.usage_amounts ?? {} },
    }));
  }

  /**
   * The GrantHistory of several locked authorities in one round trip: the running usage read with
   * the lock, and the recent grants (windows, recent actions) through the (authority_id,
   * created_at) and (authority_id, seq) indexes, and the amounts of the current UTC calendar month
   * in the authority's currency. The windows of {@link HistoryNeeds} are counted
   * only when the authority's bounds read them (zero otherwise).
   */
  async histories(
    manager: EntityManager,
    requests: ReadonlyArray<{ authorityId: string; currency: string | null; usage: AuthorityUsage; needs: HistoryNeeds }>,
    now: Date,
  ): Promise<Map<string, GrantHistory>> {
    if (requests.length === 0) return new Map();
    const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
    const hour = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000);
    const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const month = utcMonthStart(now);
    const column = <T>(pick: (request: (typeof requests)[number]) => T) => requests.map(pick);
    const rows: Array<{
      authority_id: string;
      last_minute: number;
      b_minute: number;
      b_hour: number;
      b_day: number;
      month_amount: string;
      recent: string[];
    }> = await manager.query(
      `SELECT q.authority_id,
              CASE WHEN q.last_minute THEN (SELECT count(*) FROM oap.grants g WHERE g.authority_id = q.authority_id AND g.created_at > $1::timestamptz - interval '1 minute') ELSE 0 END::int AS last_minute,
              CASE WHEN q.month AND q.currency IS NOT NULL
                THEN (SELECT coalesce(sum(g.amount), 0) FROM oap.grants g WHERE g.authority_id = q.authority_id AND g.created_at >= $8 AND g.currency = q.currency)
                ELSE 0 END::text AS month_amount,
              b.b_minute, b.b_hour, b.b_day,
              ARRAY(SELECT g.actions[1] FROM oap.grants g WHERE g.authority_id = q.authority_id ORDER BY g.seq DESC LIMIT ${RECENT_ACTIONS}) AS recent
       FROM unnest($5::text[], $6::bool[], $7::bool[], $9::bool[], $10::text[]) AS q(authority_id, last_minute, buckets, month, currency)
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
        column((r) => r.needs.lastMinute),
        column((r) => r.needs.buckets),
        month,
        column((r) => r.needs.month),
        column((r) => r.currency),
      ],
    );
    const byId = new Map(requests.map((request) => [request.authorityId, request]));
    return new Map(
      rows.map((row) => {
        const { usage, currency } = byId.get(row.authority_id)!;
        return [
          row.authority_id,
          {
            total: usage.total,
            lastMinute: row.last_minute,
            buckets: { minute: row.b_minute, hour: row.b_hour, day: row.b_day },
            aggregate: currency === null ? '0' : (usage.amounts[currency] ?? '0'),
            month: row.month_amount,
            recentActions: row.recent,
            grantedActions: new Set(usage.grantedActions),
          },
        ];
      }),
    );
  }

  /**
   * The rows of a batch's outcomes (grants with their authorities' usage, attestation tokens,
   * decisions) in one statement, with the writes of `more` (the batch's events, its idempotency
   * keys) in the same statement. Grants take `seq` in array order (arrival order).
   */
  async insertOutcomes(
    manager: EntityManager,
    rows: OutcomeRows,
    ...more: ReadonlyArray<(firstParam: number) => WritePart | undefined>
  ): Promise<void> {
    const statement = combinedWrite([(firstParam) => this.outcomesPart(rows, firstParam), ...more]);
    if (statement) await manager.query(statement.sql, statement.params);
  }

  /** The writes of {@link insertOutcomes} as a part of a `combinedWrite`; undefined when there is no row. */
  outcomesPart(rows: OutcomeRows, firstParam: number): WritePart | undefined {
    const params: unknown[] = [];
    const tuples = (values: ReadonlyArray<readonly unknown[]>) =>
      values.map((row) => `(${row.map((value) => `$${firstParam + params.push(value) - 1}`).join(', ')})`).join(', ');
    const ctes: Array<{ name: string; sql: string }> = [];
    if (rows.grants.length > 0) ctes.push(...grantWrites(tuples(rows.grants.map(grantValues))));
    if (rows.attestations.length > 0) {
      ctes.push({
        name: 'attestations_inserted',
        sql: `INSERT INTO oap.attestation_tokens (receipt_jti, grant_id, format, token, claims_digest, created_at, retain_until) VALUES ${tuples(
          rows.attestations.map((row) => [
            row.receiptJti,
            row.grantId,
            row.format,
            row.token,
            row.claimsDigest,
            row.createdAt,
            row.retainUntil,
          ]),
        )}`,
      });
    }
    if (rows.decisions.length > 0)
      ctes.push({
        name: 'decisions_inserted',
        sql: `INSERT INTO oap.decisions (${DECISION_INSERT_COLUMNS}) VALUES ${tuples(rows.decisions.map(decisionValues))}`,
      });
    return ctes.length === 0 ? undefined : { ctes, params };
  }

  async insertGrant(
    manager: EntityManager,
    grant: Omit<Grant, 'status' | 'revokedAt' | 'consumedAt'>,
    tokenSha256: string,
    contextHash: string,
    requestJson: string,
  ): Promise<void> {
    await this.insertGrants(manager, [{ grant, tokenSha256, contextHash, requestJson }]);
  }

  /** Several grant rows, with their authorities' usage, in one statement. */
  async insertGrants(manager: EntityManager, rows: readonly GrantInsert[]): Promise<void> {
    if (rows.length === 0) return;
    await this.insertOutcomes(manager, { grants: rows, attestations: [], decisions: [] });
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
    const values = valuesList(
      rows.map((row) => [row.receiptJti, row.grantId, row.format, row.token, row.claimsDigest, row.createdAt, row.retainUntil]),
    );
    await manager.query(
      `INSERT INTO oap.attestation_tokens (receipt_jti, grant_id, format, token, claims_digest, created_at, retain_until) ${values.sql}`,
      values.params,
    );
  }

  /** The attestation stored under a receipt jti. */
  async findAttestationToken(
    receiptJti: string,
  ): Promise<{ format: string; token: string; claimsDigest: string; retainUntil: Date } | undefined> {
    const rows: Array<{ format: string; token: string; claims_digest: string; retain_until: Date }> = await this.dataSource.query(
      `SELECT format, token, claims_digest, retain_until FROM oap.attestation_tokens WHERE receipt_jti = $1`,
      [receiptJti],
    );
    const row = rows[0];
    return row ? { format: row.format, token: row.token, claimsDigest: row.claims_digest, retainUntil: row.retain_until } : undefined;
  }

  /** The latest attestation claims digest of a grant (identity comparison on refresh). */
  async latestAttestationToken(grantId: string): Promise<string | undefined> {
    const rows: Array<{ token: string }> = await this.dataSource.query(
      `SELECT token FROM oap.attestation_tokens WHERE grant_id = $1 ORDER BY created_at DESC LIMIT 1`,
      [grantId],
    );
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
    const rows = await queryRows<GrantRow>(
      manager,
      `UPDATE oap.grants SET status = 'revoked', revoked_at = $2 WHERE id = $1 AND status = 'active' RETURNING ${COLUMNS}`,
      [id, at],
    );
    if (rows[0]) return { grant: toGrant(rows[0]), changed: true };
    const existing = await this.find(id, manager);
    return existing ? { grant: existing, changed: false } : undefined;
  }

  /** One-shot consumption (svc-verify with action_completed); false when already consumed. */
  async consume(id: string, at: Date): Promise<boolean> {
    const rows = await queryRows(
      this.dataSource.manager,
      `UPDATE oap.grants SET consumed_at = $2 WHERE id = $1 AND consumed_at IS NULL RETURNING id`,
      [id, at],
    );
    return rows.length > 0;
  }

  async countDecisions(agentId: string): Promise<number> {
    const rows: Array<{ n: number }> = await this.dataSource.query(`SELECT count(*)::int AS n FROM oap.decisions WHERE agent_id = $1`, [
      agentId,
    ]);
    return rows[0]?.n ?? 0;
  }
}

/** `a.id, a.name, …`: a column list qualified with a table alias. */
function prefixed(alias: string, columns: string): string {
  return columns
    .split(', ')
    .map((column) => `${alias}.${column}`)
    .join(', ');
}
