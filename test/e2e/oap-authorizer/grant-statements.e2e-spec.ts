import { GrantsRepository } from '@svc/oap-authorizer';
import { DataSource, type EntityManager } from 'typeorm';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import {
  createAgent,
  createApp,
  createAuthority,
  dpopProof,
  grantBody,
  newAgentKey,
  requestGrant,
  type AgentKey,
  type TestApp,
} from './support';

/**
 * The database work of an allowed grant (architecture: hot write paths commit in groups): however
 * many requests a batch decides, its transaction sends a fixed number of statements: the DPoP
 * `jti`s with the Idempotency-Key claims, the authority lock, the histories, and one write of the
 * grants, decisions, events and stored responses, between BEGIN and COMMIT; the agents are read
 * beside it. Rows per grant stay what they were.
 */
describe('POST /api/v1/grants: statements per group commit', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;
  let db: DataSource;

  beforeAll(async () => {
    stack = await startRegions('oap_grant_statements', { clock, regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack);
    key = await newAgentKey();
    db = stack.process.us.app.get(DataSource);
  });
  afterAll(() => stack?.close());

  it('sends four statements inside each batch of allowed grants, plus BEGIN, COMMIT and the agents read', async () => {
    const agentId = await createAgent(us, app, { manifest: true });
    const authorityId = await createAuthority(us, app, agentId);
    const grants = stack.process.us.app.get(GrantsRepository);
    const batches: string[][] = [];
    const rowsByTable = new Map<string, number>();
    const sizes: number[] = [];
    const transaction = grants.transaction.bind(grants);
    const counted = jest.spyOn(grants, 'transaction').mockImplementation(<T>(work: (manager: EntityManager) => Promise<T>) =>
      transaction(async (manager) => {
        const statements: string[] = [];
        const runner = manager.queryRunner!;
        const query = runner.query.bind(runner);
        runner.query = ((sql: string, ...rest: unknown[]) => {
          statements.push(sql.replace(/\s+/g, ' '));
          return (query as (...args: unknown[]) => Promise<unknown>)(sql, ...rest);
        }) as typeof runner.query;
        // Rows the batch writes, by table: this backend's counters before and after (not statements of the batch).
        const counters = async () => {
          const rows: Array<{ relname: string; n: string }> = await query(
            `SELECT schemaname || '.' || relname AS relname, (n_tup_ins + n_tup_upd + n_tup_del)::text AS n FROM pg_stat_xact_user_tables`,
          );
          return new Map(rows.map((row) => [row.relname, Number(row.n)]));
        };
        const before = await counters();
        try {
          const result = await work(manager);
          const after = await counters();
          for (const [table, n] of after) {
            const written = n - (before.get(table) ?? 0);
            if (written > 0) rowsByTable.set(table, (rowsByTable.get(table) ?? 0) + written);
          }
          sizes.push((after.get('oap.grants') ?? 0) - (before.get('oap.grants') ?? 0));
          return result;
        } finally {
          runner.query = query;
          batches.push(statements);
        }
      }),
    );
    const agentReads = jest.spyOn(grants, 'agentSnapshots');
    const requests = 24;
    let agentReadCount = 0;
    try {
      const proofs = await Promise.all(
        Array.from({ length: requests }, () => dpopProof(key, 'POST', `${us}/api/v1/grants`, { now: clock.now() })),
      );
      const body = grantBody(agentId, key, { valid_until: new Date(clock.now().getTime() + 3600_000).toISOString() });
      const results = await Promise.all(proofs.map((proof) => requestGrant(us, app, key, body, { now: clock.now(), proof })));
      expect(results.map((result) => result.status)).toEqual(Array.from({ length: requests }, () => 201));
    } finally {
      agentReadCount = agentReads.mock.calls.length;
      counted.mockRestore();
      agentReads.mockRestore();
    }
    const perBatch = batches.map((statements) => statements.length);
    const total = perBatch.reduce((sum, count) => sum + count + 2, 0) + agentReadCount;
    process.stdout.write(
      `grant batches: ${batches.length} for ${requests} grants (sizes ${sizes.join(',')}); statements inside each: ${perBatch.join(',')}; statements per grant (with BEGIN, COMMIT, agents read): ${(total / requests).toFixed(2)}\n`,
    );
    const rowsPerGrant = [...rowsByTable].map(([table, n]) => `${table} ${(n / requests).toFixed(2)}`).join(', ');
    const allRows = [...rowsByTable.values()].reduce((sum, n) => sum + n, 0);
    process.stdout.write(`rows written per grant: ${(allRows / requests).toFixed(2)} (${rowsPerGrant})\n`);
    expect(agentReadCount).toBe(batches.length);
    for (const statements of batches) {
      expect(statements).toHaveLength(4);
      const [claim, lock, histories, write] = statements;
      expect(claim).toMatch(/INSERT INTO oap\.replay_cache.*INSERT INTO oap\.idempotency_keys/);
      expect(lock).toMatch(/FROM oap\.authorities a .*FOR UPDATE OF a/);
      expect(histories).toMatch(/FROM unnest\(.*\) AS q\(authority_id/);
      expect(write).toMatch(
        /INSERT INTO oap\.grants .*INSERT INTO oap\.decisions .*INSERT INTO "oap"\.outbox .*UPDATE oap\.idempotency_keys .*pg_notify/,
      );
    }
    const [rows] = await db.query(
      `SELECT (SELECT count(*)::int FROM oap.grants WHERE authority_id = $1) AS grants,
              (SELECT count(*)::int FROM oap.decisions WHERE authority_id = $1) AS decisions`,
      [authorityId],
    );
    expect(rows).toEqual({ grants: requests, decisions: requests });
  });
});
