import { randomUUID } from 'node:crypto';
import { runMigrations } from '@svc/persistence';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { DataSource } from 'typeorm';
import { oapMigrations } from '../migrations';
import { GrantsRepository, type AuthorityUsage, type GrantInsert } from './grants.repository';
import type { GrantHistory } from './checks/cascade-step';

/**
 * The running usage of an authority (grant count, amounts per currency, granted actions) is what
 * a scan of all its grants would give, batch after batch; recent actions follow insertion order.
 * Spec: Authority bounds (value_bounds aggregate, action_bounds max_actions, oap_sequence_bounds).
 */
describe('authority usage and grant order (oap.grants, oap.authority_usage)', () => {
  const at = new Date('2026-03-04T10:30:00.000Z');
  let database: TestDatabase;
  let dataSource: DataSource;
  let grants: GrantsRepository;

  beforeAll(async () => {
    database = await createTestDatabase('oap_grant_usage');
    dataSource = new DataSource({ type: 'postgres', url: database.url, poolSize: 2 });
    await dataSource.initialize();
    grants = new GrantsRepository(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  async function newAuthority(agentId: string): Promise<string> {
    const id = `auth_${randomUUID()}`;
    await dataSource.query(
      `INSERT INTO oap.authorities (id, application_id, agent_id, principal_id, status, bounds_json, valid_from, valid_until, created_at, updated_at)
       VALUES ($1, 'app_1', $2, 'user_1', 'active', $3, $4, $5, $4, $4)`,
      [id, agentId, JSON.stringify({ value_bounds: { currency: 'EUR', aggregate: '1000' } }), at, new Date('2027-01-01T00:00:00Z')],
    );
    return id;
  }

  let grantCount = 0;
  function grant(
    authorityId: string,
    actions: string[],
    value?: { amount: string; currency: string },
    id = `ath_us_${randomUUID()}`,
  ): GrantInsert {
    grantCount += 1;
    return {
      grant: {
        id,
        applicationId: 'app_1',
        agentId: 'agent_1',
        authorityId,
        scopes: ['payments:write'],
        actions,
        amount: value?.amount ?? null,
        currency: value?.currency ?? null,
        dpopJkt: 'jkt',
        validUntil: new Date('2026-03-04T12:00:00Z'),
        receiptJti: `jti_${grantCount}_${randomUUID()}`,
        receipt: 'receipt',
        createdAt: at,
      },
      tokenSha256: `sha_${grantCount}_${randomUUID()}`,
      contextHash: 'context',
      requestJson: '{}',
    };
  }

  /** The usage as the lock reads it. */
  async function usageOf(authorityIds: string[]): Promise<Map<string, AuthorityUsage>> {
    const locked = await grants.transaction((manager) =>
      grants.lockAuthorities(manager, { named: authorityIds, unnamedAgentIds: [], agentIds: ['agent_1'] }),
    );
    return new Map(locked.map((row) => [row.authority.id, row.usage]));
  }

  /** The same parts computed the slow way, from every grant. */
  async function scanned(authorityId: string): Promise<AuthorityUsage> {
    const [row] = await dataSource.query(
      `SELECT count(*)::int AS total,
              ARRAY(SELECT DISTINCT a FROM oap.grants g, unnest(g.actions) a WHERE g.authority_id = $1 ORDER BY a) AS actions,
              (SELECT COALESCE(jsonb_object_agg(currency, total::text), '{}') FROM (SELECT currency, sum(amount) AS total FROM oap.grants WHERE authority_id = $1 AND amount IS NOT NULL GROUP BY currency) s) AS amounts
       FROM oap.grants WHERE authority_id = $1`,
      [authorityId],
    );
    return { total: row.total, grantedActions: row.actions, amounts: row.amounts };
  }

  async function historyOf(authorityId: string, options: { now?: Date; month?: boolean } = {}): Promise<GrantHistory> {
    return grants.transaction(async (manager) => {
      const [locked] = await grants.lockAuthorities(manager, { named: [authorityId], unnamedAgentIds: [], agentIds: ['agent_1'] });
      const needs = { lastMinute: true, buckets: true, month: options.month ?? true };
      const histories = await grants.histories(manager, [{ authorityId, currency: 'EUR', usage: locked!.usage, needs }], options.now ?? at);
      return histories.get(authorityId)!;
    });
  }

  it('backfills the usage and the order of grants written before the migration', async () => {
    await runMigrations(dataSource, { ...oapMigrations, migrations: oapMigrations.migrations.slice(0, 2) });
    await dataSource.query(
      `INSERT INTO oap.agents (id, application_id, name, created_at, updated_at) VALUES ('agent_1', 'app_1', 'shopper', $1, $1)`,
      [at],
    );
    const authorityId = await newAuthority('agent_1');
    const earlier = new Date(at.getTime() - 60_000);
    const old = [
      grant(authorityId, ['quote'], { amount: '0.10', currency: 'EUR' }),
      grant(authorityId, ['pay', 'refund'], { amount: '0.20', currency: 'EUR' }),
      grant(authorityId, ['pay'], { amount: '5', currency: 'USD' }),
    ];
    old[0]!.grant.createdAt = earlier;
    for (const row of old) {
      const { grant: g } = row;
      await dataSource.query(
        `INSERT INTO oap.grants (id, application_id, agent_id, authority_id, scopes, actions, amount, currency, dpop_jkt, agent_token_sha256, valid_until, receipt_jti, receipt, context_hash, created_at, request_json)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
        [
          g.id,
          g.applicationId,
          g.agentId,
          g.authorityId,
          g.scopes,
          g.actions,
          g.amount,
          g.currency,
          g.dpopJkt,
          row.tokenSha256,
          g.validUntil,
          g.receiptJti,
          g.receipt,
          row.contextHash,
          g.createdAt,
          row.requestJson,
        ],
      );
    }
    await runMigrations(dataSource, oapMigrations);

    const usage = (await usageOf([authorityId])).get(authorityId)!;
    expect(usage).toEqual({ total: 3, grantedActions: ['pay', 'quote', 'refund'], amounts: { EUR: '0.30', USD: '5' } });
    expect(usage).toEqual(await scanned(authorityId));
    const [first] = await dataSource.query(`SELECT id FROM oap.grants WHERE authority_id = $1 ORDER BY seq LIMIT 1`, [authorityId]);
    expect(first.id).toBe(old[0]!.grant.id);
  });

  it('keeps count, exact amounts per currency and granted actions equal to a full scan, batch after batch, revocations included', async () => {
    const [a, b] = [await newAuthority('agent_1'), await newAuthority('agent_1')];
    const never = await newAuthority('agent_1');
    const batches: GrantInsert[][] = [
      [
        grant(a, ['pay'], { amount: '0.10', currency: 'EUR' }),
        grant(b, ['quote']),
        grant(a, ['pay', 'quote'], { amount: '0.20', currency: 'EUR' }),
      ],
      [
        grant(a, ['pay'], { amount: '0.000000000000000001', currency: 'EUR' }),
        grant(a, ['refund'], { amount: '999999999999999999.99', currency: 'USD' }),
      ],
      [grant(b, ['pay'], { amount: '12.50', currency: 'EUR' }), grant(a, ['pay'], { amount: '0.70', currency: 'EUR' })],
    ];
    const written: string[] = [];
    for (const [index, batch] of batches.entries()) {
      // Batches go through both writers of grants: the group commit's and the single issue's.
      if (index === 1) await grants.transaction((manager) => grants.insertGrants(manager, batch));
      else await grants.transaction((manager) => grants.insertOutcomes(manager, { grants: batch, attestations: [], decisions: [] }));
      written.push(...batch.map((row) => row.grant.id));
      const usage = await usageOf([a, b, never]);
      expect(usage.get(a)).toEqual(await scanned(a));
      expect(usage.get(b)).toEqual(await scanned(b));
      expect(usage.get(never)).toEqual({ total: 0, grantedActions: [], amounts: {} });
    }
    const usage = await usageOf([a, b]);
    expect(usage.get(a)).toEqual({
      total: 5,
      grantedActions: ['pay', 'quote', 'refund'],
      amounts: { EUR: '1.000000000000000001', USD: '999999999999999999.99' },
    });
    expect(usage.get(b)).toEqual({ total: 2, grantedActions: ['pay', 'quote'], amounts: { EUR: '12.50' } });

    // A revoked grant still counts towards the lifetime bounds, as in a scan of every grant.
    await grants.transaction(async (manager) => {
      for (const id of written.slice(0, 3)) await grants.revoke(manager, id, at);
    });
    expect((await usageOf([a])).get(a)).toEqual(usage.get(a));
    expect(await historyOf(a)).toMatchObject({
      total: 5,
      aggregate: '1.000000000000000001',
      grantedActions: new Set(['pay', 'quote', 'refund']),
    });
  });

  it('rolls the usage back with a failed batch', async () => {
    const authorityId = await newAuthority('agent_1');
    await grants.transaction((manager) =>
      grants.insertOutcomes(manager, {
        grants: [grant(authorityId, ['pay'], { amount: '1', currency: 'EUR' })],
        attestations: [],
        decisions: [],
      }),
    );
    const duplicate = grant(authorityId, ['quote'], { amount: '2', currency: 'EUR' });
    await expect(
      grants.transaction(async (manager) => {
        await grants.insertOutcomes(manager, { grants: [duplicate], attestations: [], decisions: [] });
        await grants.insertOutcomes(manager, { grants: [duplicate], attestations: [], decisions: [] });
      }),
    ).rejects.toThrow();
    expect((await usageOf([authorityId])).get(authorityId)).toEqual({ total: 1, grantedActions: ['pay'], amounts: { EUR: '1' } });
  });

  it("reads a batch's grants back in arrival order, newest first, though they share created_at and their ids sort otherwise", async () => {
    const authorityId = await newAuthority('agent_1');
    const arrival = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'];
    // Ids sorting against arrival order: the old tie-break (id) would read them back reversed.
    const batch = arrival.map((action, index) => grant(authorityId, [action], undefined, `ath_us_${String(9 - index)}_${randomUUID()}`));
    await grants.transaction((manager) => grants.insertOutcomes(manager, { grants: batch.slice(0, 3), attestations: [], decisions: [] }));
    await grants.transaction((manager) => grants.insertOutcomes(manager, { grants: batch.slice(3), attestations: [], decisions: [] }));
    const history = await historyOf(authorityId);
    expect(history.recentActions).toEqual([...arrival].reverse());
    expect(history).toMatchObject({ total: 6, lastMinute: 6, buckets: { minute: 6, hour: 6, day: 6 } });
  });

  it("sums exactly the amounts of the current UTC calendar month in the authority's currency, the first millisecond included", async () => {
    const authorityId = await newAuthority('agent_1');
    const rows = [
      [new Date('2026-02-28T23:59:59.999Z'), '10.00', 'EUR'],
      [new Date('2026-03-01T00:00:00.000Z'), '0.25', 'EUR'],
      [new Date('2026-03-02T08:00:00.000Z'), '7', 'USD'],
      [at, '0.000000000000000001', 'EUR'],
      [at, '1.5', 'EUR'],
    ] as const;
    const batch = rows.map(([createdAt, amount, currency]) => {
      const row = grant(authorityId, ['pay'], { amount, currency });
      row.grant.createdAt = createdAt;
      return row;
    });
    await grants.transaction((manager) => grants.insertOutcomes(manager, { grants: batch, attestations: [], decisions: [] }));

    expect(await historyOf(authorityId)).toMatchObject({ aggregate: '11.750000000000000001', month: '1.750000000000000001' });
    // Read in April, March's grants are no longer this month's.
    expect((await historyOf(authorityId, { now: new Date('2026-04-01T00:00:00.000Z') })).month).toBe('0');
    // Read only when the bounds ask for it.
    expect((await historyOf(authorityId, { month: false })).month).toBe('0');
    expect((await historyOf(await newAuthority('agent_1'))).month).toBe('0');
  });
});
