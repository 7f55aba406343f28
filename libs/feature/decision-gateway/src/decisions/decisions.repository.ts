import { Injectable } from '@nestjs/common';
import { claimAwaitingMark, queryRows, type OutboxInsert } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type {
  CreatedVia,
  DecisionKind,
  DecisionSession,
  DeliveryMode,
  PrincipalBinding,
  QuorumType,
  SessionStatus,
  TriggerType,
} from './decision';
import type { Tally, Vote } from './quorum';
import { SigningOutcomes } from './signing-outcomes';

interface SessionRow {
  token_sha256: string;
  session_token: string | null;
  application_id: string;
  kind: DecisionKind;
  status: SessionStatus;
  outcome: string | null;
  flow_id: string | null;
  flow_version: number | null;
  consent_path: 'standard' | 'informed' | null;
  purposes: string[];
  delivery_mode: DeliveryMode;
  embed_origin: string | null;
  principal_id: string | null;
  principal_binding: PrincipalBinding | null;
  trigger_type: TriggerType | null;
  reference: string | null;
  quorum_type: QuorumType | null;
  quorum_required: number | null;
  participants: string[];
  proposal: Record<string, unknown> | null;
  counter_proposal: Record<string, unknown> | null;
  evidence: Record<string, unknown> | null;
  decision_url: string;
  deadline: Date;
  created_via: CreatedVia;
  exchange_token_sha256: string | null;
  exchanged_at: Date | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

function toSession(r: SessionRow): DecisionSession {
  return {
    tokenSha256: r.token_sha256,
    sessionToken: r.session_token,
    applicationId: r.application_id,
    kind: r.kind,
    status: r.status,
    outcome: r.outcome,
    flowId: r.flow_id,
    flowVersion: r.flow_version,
    consentPath: r.consent_path,
    purposes: r.purposes,
    deliveryMode: r.delivery_mode,
    embedOrigin: r.embed_origin,
    principalId: r.principal_id,
    principalBinding: r.principal_binding,
    triggerType: r.trigger_type,
    reference: r.reference,
    quorumType: r.quorum_type,
    quorumRequired: r.quorum_required,
    participants: r.participants,
    proposal: r.proposal,
    counterProposal: r.counter_proposal,
    evidence: r.evidence,
    decisionUrl: r.decision_url,
    deadline: r.deadline,
    createdVia: r.created_via,
    exchangeTokenSha256: r.exchange_token_sha256,
    exchangedAt: r.exchanged_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    completedAt: r.completed_at,
  };
}

/** The UPDATE of a move, without its RETURNING; parameters from {@link updateParams}. */
const UPDATE_SESSION = `UPDATE gateway.decision_sessions SET
         status = COALESCE($2, status),
         counter_proposal = COALESCE($3::jsonb, counter_proposal),
         evidence = COALESCE($4::jsonb, evidence),
         exchange_token_sha256 = COALESCE($5, exchange_token_sha256),
         completed_at = COALESCE($6, completed_at),
         outcome = COALESCE($8, outcome),
         principal_id = COALESCE($9, principal_id),
         principal_binding = COALESCE($10, principal_binding),
         purposes = COALESCE($11::text[], purposes),
         updated_at = $7
       WHERE token_sha256 = $1`;

function updateParams(tokenSha256: string, patch: SessionPatch, at: Date): unknown[] {
  return [
    tokenSha256,
    patch.status ?? null,
    patch.counterProposal ? JSON.stringify(patch.counterProposal) : null,
    patch.evidence ? JSON.stringify(patch.evidence) : null,
    patch.exchangeTokenSha256 ?? null,
    patch.completedAt ?? null,
    at,
    patch.outcome ?? null,
    patch.principal?.id ?? null,
    patch.principal?.binding ?? null,
    patch.purposes ?? null,
  ];
}

/** A consent token issued on a fulfilled consent. */
export interface NewConsentToken {
  sha256: string;
  sessionSha256: string;
  applicationId: string;
  issuedAt: Date;
  expiresAt: Date;
}

/** Fields a new session is inserted with. */
export type NewSession = Omit<
  DecisionSession,
  'outcome' | 'createdAt' | 'updatedAt' | 'completedAt' | 'exchangeTokenSha256' | 'exchangedAt' | 'counterProposal' | 'evidence'
>;

/** Changes a transition writes; absent keys keep their value. */
export interface SessionPatch {
  status?: SessionStatus;
  outcome?: string;
  counterProposal?: Record<string, unknown>;
  evidence?: Record<string, unknown>;
  exchangeTokenSha256?: string;
  completedAt?: Date;
  /** Binds the person (only ever set on an unbound session, by the hosted sign-in). */
  principal?: { id: string; binding: PrincipalBinding };
  /** Consent fulfilled with a choice: the purpose keys granted (a subset of those shown). */
  purposes?: string[];
}

/** Inbox filters (spec, What the service does 9). */
export interface InboxQuery {
  applicationId: string;
  /** The application's identifiers of the person (one, or a person's linked references). */
  principalIds: string[];
  kind?: 'consent' | 'approval';
  triggerType?: TriggerType;
  sort: 'deadline' | 'newest';
  now: Date;
  limit: number;
  after?: { at: string; token: string };
}

/** Queries of gateway.decision_sessions, decision_votes and consent_tokens. */
@Injectable()
export class DecisionsRepository {
  constructor(
    private readonly dataSource: DataSource,
    /** Owners of signing outcomes (agreements); consulted when a signing session resolves. */
    readonly signingOutcomes: SigningOutcomes,
  ) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Runs `work` on the pool without a transaction (no BEGIN, no COMMIT): for a write of one
   * statement, which commits by itself. In a transaction after all when the request holds an
   * `Idempotency-Key` claim still to be marked: the store's recovery point marks it in the
   * request's first committing transaction, together with the write.
   */
  withoutTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return claimAwaitingMark() ? this.dataSource.transaction(work) : work(this.dataSource.manager);
  }

  /** True when `origin` is one of the application's allowed origins (gateway schema, same service). */
  async isAllowedOrigin(applicationId: string, origin: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM gateway.allowed_origins WHERE application_id = $1 AND origin = $2`, [
      applicationId,
      origin,
    ]);
    return rows.length > 0;
  }

  async applicationExists(manager: EntityManager, applicationId: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT 1 FROM gateway.applications WHERE id = $1`, [applicationId]);
    return rows.length > 0;
  }

  /** Inserts a session; false when one with the same token digest already exists (redelivered request). */
  async insert(manager: EntityManager, s: NewSession, at: Date): Promise<boolean> {
    return (await this.insertReturning(manager, s, at)) !== undefined;
  }

  /** Inserts a session and answers it as stored (one round trip); undefined when one with the same token digest already exists. */
  async insertReturning(manager: EntityManager, s: NewSession, at: Date): Promise<DecisionSession | undefined> {
    const rows: SessionRow[] = await manager.query(
      `INSERT INTO gateway.decision_sessions (token_sha256, session_token, application_id, kind, status, flow_id, flow_version, consent_path, purposes,
         delivery_mode, embed_origin, principal_id, trigger_type, reference, quorum_type, quorum_required, participants, proposal, decision_url, deadline,
         created_via, created_at, updated_at, principal_binding)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $22, $23)
       ON CONFLICT (token_sha256) DO NOTHING RETURNING *`,
      [
        s.tokenSha256,
        s.sessionToken,
        s.applicationId,
        s.kind,
        s.status,
        s.flowId,
        s.flowVersion,
        s.consentPath,
        s.purposes,
        s.deliveryMode,
        s.embedOrigin,
        s.principalId,
        s.triggerType,
        s.reference,
        s.quorumType,
        s.quorumRequired,
        s.participants,
        s.proposal === null ? null : JSON.stringify(s.proposal),
        s.decisionUrl,
        s.deadline,
        s.createdVia,
        at,
        s.principalBinding,
      ],
    );
    return rows[0] ? toSession(rows[0]) : undefined;
  }

  /** A session by token digest; `applicationId` scopes it (undefined for the session-token-authorized routes). */
  async find(
    tokenSha256: string,
    options: { manager?: EntityManager; lock?: boolean; applicationId?: string } = {},
  ): Promise<DecisionSession | undefined> {
    const manager = options.manager ?? this.dataSource.manager;
    const rows: SessionRow[] = await manager.query(
      `SELECT * FROM gateway.decision_sessions WHERE token_sha256 = $1 AND ($2::text IS NULL OR application_id = $2) ${options.lock ? 'FOR UPDATE' : ''}`,
      [tokenSha256, options.applicationId ?? null],
    );
    return rows[0] ? toSession(rows[0]) : undefined;
  }

  async update(manager: EntityManager, tokenSha256: string, patch: SessionPatch, at: Date): Promise<DecisionSession> {
    const rows = await queryRows<SessionRow>(manager, `${UPDATE_SESSION} RETURNING *`, updateParams(tokenSha256, patch, at));
    return toSession(rows[0]!);
  }

  /**
   * A move without a lock, in one statement and no transaction: applies `patch` only while the
   * session still stands as it was read (`expected`: its status, its person and how it is bound) and is
   * still open at `at` (no deadline passed, not completed). Two moves from the same state never both
   * apply: the second one's statement waits for the first one's row lock, then no longer matches.
   * With `also`, a consent token and outbox events are written by the same statement, only when the
   * move applies. Undefined when it does not (the session changed, expired or was never found).
   * Not for a request holding an `Idempotency-Key` claim still to be marked (see
   * {@link withoutTransaction}): its move runs in a transaction.
   */
  async updateIfUnchanged(
    tokenSha256: string,
    expected: Pick<DecisionSession, 'status' | 'principalId' | 'principalBinding'>,
    patch: SessionPatch,
    at: Date,
    also: { consentToken?: Omit<NewConsentToken, 'sessionSha256' | 'applicationId'>; events?: (firstParam: number) => OutboxInsert } = {},
  ): Promise<DecisionSession | undefined> {
    const params: unknown[] = [...updateParams(tokenSha256, patch, at), expected.status, expected.principalId, expected.principalBinding];
    const ctes = [
      `updated AS (${UPDATE_SESSION}
         AND status = $12 AND principal_id IS NOT DISTINCT FROM $13::text AND principal_binding IS NOT DISTINCT FROM $14::text
         AND completed_at IS NULL AND deadline > $7
       RETURNING *)`,
    ];
    if (also.consentToken) {
      const t = also.consentToken;
      params.push(t.sha256, t.issuedAt, t.expiresAt);
      ctes.push(
        `consent_token AS (INSERT INTO gateway.consent_tokens (token_sha256, session_token_sha256, application_id, issued_at, expires_at)
         SELECT $${params.length - 2}, token_sha256, application_id, $${params.length - 1}::timestamptz, $${params.length}::timestamptz FROM updated)`,
      );
    }
    let woken = '';
    if (also.events) {
      const events = also.events(params.length + 1);
      // Inserted, and the relay woken when the statement commits, only when the move applies.
      ctes.push(`outbox_inserted AS (${events.insert} WHERE EXISTS (SELECT 1 FROM updated))`);
      woken = `, (${events.notify}) AS woken`;
      params.push(...events.params);
    }
    const rows: SessionRow[] = await this.dataSource.query(`WITH ${ctes.join(', ')} SELECT updated.*${woken} FROM updated`, params);
    return rows[0] ? toSession(rows[0]) : undefined;
  }

  /** Marks the exchange done; false when it already was (single use). */
  async markExchanged(manager: EntityManager, tokenSha256: string, at: Date): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `UPDATE gateway.decision_sessions SET exchanged_at = $2, updated_at = $2 WHERE token_sha256 = $1 AND exchanged_at IS NULL RETURNING token_sha256`,
      [tokenSha256, at],
    );
    return rows.length > 0;
  }

  /** Records a vote; false when this participant already voted. */
  async insertVote(
    manager: EntityManager,
    tokenSha256: string,
    participantId: string,
    vote: Vote,
    counterProposal: Record<string, unknown> | undefined,
    at: Date,
  ): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `INSERT INTO gateway.decision_votes (token_sha256, participant_id, vote, counter_proposal, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT ON CONSTRAINT decision_votes_pk DO NOTHING RETURNING participant_id`,
      [tokenSha256, participantId, vote, counterProposal ? JSON.stringify(counterProposal) : null, at],
    );
    return rows.length > 0;
  }

  async tally(manager: EntityManager, tokenSha256: string): Promise<Tally> {
    const rows: Array<{ vote: Vote; count: string }> = await manager.query(
      `SELECT vote, count(*) AS count FROM gateway.decision_votes WHERE token_sha256 = $1 GROUP BY vote`,
      [tokenSha256],
    );
    const tally: Tally = { yes: 0, no: 0, counter: 0 };
    for (const row of rows) tally[row.vote] = Number(row.count);
    return tally;
  }

  /** Counter proposal of the most recent counter vote (the one an aggregated `countered` carries). */
  async latestCounterProposal(manager: EntityManager, tokenSha256: string): Promise<Record<string, unknown> | undefined> {
    const rows: Array<{ counter_proposal: Record<string, unknown> }> = await manager.query(
      `SELECT counter_proposal FROM gateway.decision_votes WHERE token_sha256 = $1 AND vote = 'counter' ORDER BY created_at DESC, participant_id DESC LIMIT 1`,
      [tokenSha256],
    );
    return rows[0]?.counter_proposal;
  }

  async insertConsentToken(manager: EntityManager, token: NewConsentToken): Promise<void> {
    await manager.query(
      `INSERT INTO gateway.consent_tokens (token_sha256, session_token_sha256, application_id, issued_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
      [token.sha256, token.sessionSha256, token.applicationId, token.issuedAt, token.expiresAt],
    );
  }

  /** The consent token row, locked, with its session's status. */
  async findConsentTokenForUpdate(
    manager: EntityManager,
    applicationId: string,
    sha256: string,
  ): Promise<{ expiresAt: Date; verifiedAt: Date | null; sessionStatus: SessionStatus } | undefined> {
    const rows: Array<{ expires_at: Date; verified_at: Date | null; status: SessionStatus }> = await manager.query(
      `SELECT t.expires_at, t.verified_at, s.status FROM gateway.consent_tokens t JOIN gateway.decision_sessions s ON s.token_sha256 = t.session_token_sha256
       WHERE t.token_sha256 = $1 AND t.application_id = $2 FOR UPDATE OF t`,
      [sha256, applicationId],
    );
    const row = rows[0];
    return row ? { expiresAt: row.expires_at, verifiedAt: row.verified_at, sessionStatus: row.status } : undefined;
  }

  /** Clears the token server-side: later verifications see it as used. */
  async markConsentTokenVerified(manager: EntityManager, sha256: string, at: Date): Promise<void> {
    await manager.query(`UPDATE gateway.consent_tokens SET verified_at = $2 WHERE token_sha256 = $1`, [sha256, at]);
  }

  /** Digests of open sessions whose deadline has passed, oldest first. */
  async dueForExpiry(now: Date, limit: number): Promise<string[]> {
    const rows: Array<{ token_sha256: string }> = await this.dataSource.query(
      `SELECT token_sha256 FROM gateway.decision_sessions WHERE completed_at IS NULL AND deadline <= $1 ORDER BY deadline, token_sha256 LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => r.token_sha256);
  }

  /** Pending consent and approval sessions of one principal (their own, or as an approver). */
  async inbox(q: InboxQuery): Promise<DecisionSession[]> {
    const newest = q.sort === 'newest';
    const position = newest ? 'created_at' : 'deadline';
    const keyset = q.after ? `AND (${position}, token_sha256) ${newest ? '<' : '>'} ($6::timestamptz, $7)` : '';
    const rows: SessionRow[] = await this.dataSource.query(
      `SELECT * FROM gateway.decision_sessions
       WHERE completed_at IS NULL AND deadline > $1 AND application_id = $2
         AND (principal_id = ANY ($3::text[]) OR participants && $3::text[])
         AND NOT EXISTS (SELECT 1 FROM gateway.decision_votes v WHERE v.token_sha256 = decision_sessions.token_sha256 AND v.participant_id = ANY ($3::text[]))
         AND kind IN ('consent', 'approval')
         AND ($4::text IS NULL OR kind = $4)
         AND ($5::text IS NULL OR trigger_type = $5)
         ${keyset}
       ORDER BY ${position} ${newest ? 'DESC' : 'ASC'}, token_sha256 ${newest ? 'DESC' : 'ASC'}
       LIMIT ${q.after ? '$8' : '$6'}`,
      [
        q.now,
        q.applicationId,
        q.principalIds,
        q.kind ?? null,
        q.triggerType ?? null,
        ...(q.after ? [q.after.at, q.after.token] : []),
        q.limit,
      ],
    );
    return rows.map(toSession);
  }
}
