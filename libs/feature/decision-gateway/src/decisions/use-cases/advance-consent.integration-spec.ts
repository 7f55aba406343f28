import { randomBytes } from 'node:crypto';
import { FakeClock } from '@svc/config';
import { isDomainError } from '@svc/errors';
import { OutboxWriter, RunningClaim, createDataSource, dropDatabase, ensureDatabase, runMigrations, runUnderClaim } from '@svc/persistence';
import type { DataSource, QueryRunner } from 'typeorm';
import { gatewayMigrations } from '../../migrations';
import { GATEWAY_SCHEMA } from '../../schema';
import type { ConsentAction } from '../consent-transitions';
import type { ConsentStatus, DecisionSession } from '../decision';
import { DecisionsRepository } from '../decisions.repository';
import type { FlowLookup } from '../flow-lookup';
import type { SigningOutcomes } from '../signing-outcomes';
import { AdvanceConsent, type ConsentMoveResult } from './advance-consent.use-case';

const url = `${process.env.TEST_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432'}/svc_test_consent_moves_${randomBytes(6).toString('hex')}`;
const APPLICATION = 'app_us_aaaaaaaaaaaaaaaaaaaa';
const HOUR = 3_600_000;

/** The answer of a move: the session's status and the tokens, or the refusal's code, kind and details. */
async function answerOf(move: Promise<ConsentMoveResult>): Promise<Record<string, unknown>> {
  try {
    const result = await move;
    return {
      status: result.session.status,
      consentToken: result.consentToken !== undefined,
      exchangeToken: result.exchangeToken !== undefined,
    };
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return { kind: error.kind, code: error.code, detail: error.detail };
  }
}

/**
 * A consent move starts from the session as the route read it, without a lock, and applies it with
 * one conditional statement; two identical moves from the same state still never both apply, and
 * the one that loses answers what the locked path answers (against the real Postgres).
 */
describe('AdvanceConsent on the session as read', () => {
  let dataSource: DataSource | undefined;
  let repo: DecisionsRepository;
  let advance: AdvanceConsent;
  const clock = new FakeClock(new Date());

  const openSession = async (status: ConsentStatus, deadline = new Date(clock.now().getTime() + HOUR)): Promise<DecisionSession> => {
    const tokenSha256 = randomBytes(32).toString('hex');
    await repo.insert(
      dataSource!.manager,
      {
        tokenSha256,
        sessionToken: `dts_${randomBytes(32).toString('base64url').slice(0, 43)}`,
        applicationId: APPLICATION,
        kind: 'consent',
        status,
        flowId: 'flw_test',
        flowVersion: 1,
        consentPath: 'standard',
        purposes: ['newsletter'],
        deliveryMode: 'redirect',
        embedOrigin: null,
        principalId: null,
        principalBinding: null,
        triggerType: null,
        reference: null,
        quorumType: null,
        quorumRequired: null,
        participants: [],
        proposal: null,
        decisionUrl: 'https://us.svc.example/decisions/x',
        deadline,
        createdVia: 'decisions',
      },
      clock.now(),
    );
    return (await repo.find(tokenSha256))!;
  };

  /** Two identical moves, both from `seen`, whose statements queue on the row lock a third transaction holds. */
  const raceFrom = async (seen: DecisionSession, action: ConsentAction): Promise<Array<Record<string, unknown>>> => {
    const holder: QueryRunner = dataSource!.createQueryRunner();
    await holder.connect();
    try {
      await holder.startTransaction();
      await holder.query('SELECT 1 FROM gateway.decision_sessions WHERE token_sha256 = $1 FOR UPDATE', [seen.tokenSha256]);
      const moves = [
        answerOf(advance.execute(seen.tokenSha256, { action }, {}, seen)),
        answerOf(advance.execute(seen.tokenSha256, { action }, {}, seen)),
      ];
      await waitForLockWaiters(seen.tokenSha256, 2);
      await holder.commitTransaction();
      return await Promise.all(moves);
    } finally {
      await holder.release();
    }
  };

  /** Until `count` statements wait for a lock (both moves reached their conditional statement). */
  const waitForLockWaiters = async (tokenSha256: string, count: number): Promise<void> => {
    for (let attempt = 0; attempt < 500; attempt += 1) {
      const rows: Array<{ waiting: string }> = await dataSource!.query(
        `SELECT count(*) AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%decision_sessions%'`,
      );
      if (Number(rows[0]?.waiting) >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`the two moves on ${tokenSha256} never queued on the row lock`);
  };

  beforeAll(async () => {
    await ensureDatabase(url);
    dataSource = createDataSource({ url, poolSize: 4, applicationName: 'consent-moves-test' });
    await dataSource.initialize();
    await runMigrations(dataSource, gatewayMigrations);
    await dataSource.query(`INSERT INTO gateway.applications (id, name, environment, region) VALUES ($1, 'moves', 'development', 'us')`, [
      APPLICATION,
    ]);
    repo = new DecisionsRepository(dataSource, {} as SigningOutcomes);
    advance = new AdvanceConsent(repo, new OutboxWriter(GATEWAY_SCHEMA, 'us'), clock, {} as FlowLookup);
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await dropDatabase(url);
  });

  it('applies an intermediate move once when two identical ones race from the same state; the other answers as the locked path does', async () => {
    const seen = await openSession('pending');
    const answers = await raceFrom(seen, 'sign_in');
    expect(answers.filter((answer) => answer['status'] === 'authenticating')).toEqual([
      { status: 'authenticating', consentToken: false, exchangeToken: false },
    ]);
    const lost = answers.find((answer) => answer['code'] !== undefined);
    // The locked path, asked the same move now, gives the loser's answer.
    const locked = await answerOf(advance.execute(seen.tokenSha256, { action: 'sign_in' }));
    expect(lost).toEqual({
      kind: 'conflict',
      code: 'transition_not_allowed',
      detail: { status: 'authenticating', action: 'sign_in', consent_path: 'standard' },
    });
    expect(locked).toEqual(lost);
    expect((await repo.find(seen.tokenSha256))?.status).toBe('authenticating');
  });

  it('completes once when two completes race: one consent token, one consent_session.granted event', async () => {
    const seen = await openSession('reviewing');
    const answers = await raceFrom(seen, 'complete');
    expect(answers).toEqual(
      expect.arrayContaining([
        { status: 'fulfilled', consentToken: true, exchangeToken: true },
        { kind: 'conflict', code: 'transition_not_allowed', detail: { status: 'fulfilled', action: 'complete', consent_path: 'standard' } },
      ]),
    );
    const tokens: unknown[] = await dataSource!.query('SELECT 1 FROM gateway.consent_tokens WHERE session_token_sha256 = $1', [
      seen.tokenSha256,
    ]);
    expect(tokens).toHaveLength(1);
    const events: Array<{ event_type: string }> = await dataSource!.query(
      `SELECT event_type FROM gateway.outbox WHERE event_type = 'consent_session.granted' AND position($1::bytea in payload) > 0`,
      [Buffer.from(seen.sessionToken!, 'utf8')],
    );
    expect(events).toEqual([{ event_type: 'consent_session.granted' }]);
    const stored = await repo.find(seen.tokenSha256);
    expect([stored?.status, stored?.outcome, stored?.completedAt?.getTime()]).toEqual(['fulfilled', 'granted', clock.now().getTime()]);
  });

  it('declines once when two declines race: one consent_session.denied event', async () => {
    const seen = await openSession('verifying');
    const answers = await raceFrom(seen, 'decline');
    expect(answers).toEqual(
      expect.arrayContaining([
        { status: 'expired', consentToken: false, exchangeToken: true },
        { kind: 'conflict', code: 'transition_not_allowed', detail: { status: 'expired', action: 'decline', consent_path: 'standard' } },
      ]),
    );
    const events: unknown[] = await dataSource!.query(
      `SELECT 1 FROM gateway.outbox WHERE event_type = 'consent_session.denied' AND position($1::bytea in payload) > 0`,
      [Buffer.from(seen.sessionToken!, 'utf8')],
    );
    expect(events).toHaveLength(1);
  });

  it('answers session_expired and records the expiry when the session read is past its deadline', async () => {
    const seen = await openSession('pending', new Date(clock.now().getTime() + 1_000));
    clock.advance(2_000);
    expect(await answerOf(advance.execute(seen.tokenSha256, { action: 'sign_in' }, {}, seen))).toEqual({
      kind: 'gone',
      code: 'session_expired',
      detail: undefined,
    });
    const stored = await repo.find(seen.tokenSha256);
    expect([stored?.status, stored?.outcome]).toEqual(['expired', 'expired']);
  });

  it('moves in a transaction, which marks the claim, for a request holding an Idempotency-Key claim', async () => {
    const seen = await openSession('pending');
    const marked: string[] = [];
    const running = new RunningClaim(
      {
        dataSource: dataSource!,
        markApplied: async (_runner, claim) => {
          marked.push(claim.key);
          return true;
        },
      },
      { caller: 'test', key: 'key-1', claimId: 'claim-1' },
    );
    const answer = await runUnderClaim(running, () => answerOf(advance.execute(seen.tokenSha256, { action: 'sign_in' }, {}, seen)));
    expect(answer).toEqual({ status: 'authenticating', consentToken: false, exchangeToken: false });
    expect([marked, running.applied]).toEqual([['key-1'], true]);
  });

  it('answers from the session as it stands when it changed after the read', async () => {
    const seen = await openSession('pending');
    await advance.execute(seen.tokenSha256, { action: 'sign_in' }, {}, seen);
    // A move computed on the stale read (pending → authenticating by sign_in) is refused as the table refuses it now.
    expect(await answerOf(advance.execute(seen.tokenSha256, { action: 'sign_in' }, {}, seen))).toEqual({
      kind: 'conflict',
      code: 'transition_not_allowed',
      detail: { status: 'authenticating', action: 'sign_in', consent_path: 'standard' },
    });
    // A move the stale read refuses but the session as it stands allows is applied.
    expect(await answerOf(advance.execute(seen.tokenSha256, { action: 'start_checks' }, {}, seen))).toEqual({
      status: 'verifying',
      consentToken: false,
      exchangeToken: false,
    });
  });
});
