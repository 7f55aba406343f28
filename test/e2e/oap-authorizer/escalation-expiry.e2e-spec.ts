import { randomUUID } from 'node:crypto';
import { create, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ApprovalDecidedSchema, EventMetaSchema, decodeEvent } from '@svc/contracts';
import { ExpireDueSessions } from '@svc/decision-gateway';
import { ApprovalOutcomesConsumer, EXPIRY_SETTLE_MS, ExpireDueEscalations, RecordEscalationVote } from '@svc/oap-authorizer';
import { http, waitFor } from '@svc/testing';
import { DataSource } from 'typeorm';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import {
  bearer,
  createAgent,
  createApp,
  createAuthority,
  grantBody,
  newAgentKey,
  requestGrant,
  type AgentKey,
  type TestApp,
} from './support';

const TTL_SECONDS = 120;

/** Spec: OAP escalations (approval TTL); an unanswered escalation expires and refuses late votes. */
describe('approval expiry of OAP escalations', () => {
  const start = '2026-03-04T10:30:00.000Z';
  const clock = new FakeClock(start);
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;
  let db: DataSource;

  beforeAll(async () => {
    stack = await startRegions('oap_expiry', { clock, regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack, 'expiry');
    key = await newAgentKey();
    db = stack.process.us.app.get(DataSource);
  });
  afterAll(() => stack?.close());
  afterEach(() => clock.set(start));

  async function openEscalation(approvers = ['user_1']): Promise<{ id: string; ttlAt: string }> {
    const agentId = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, agentId, {
      escalation_bounds: { always: true, quorum_type: 'all', approvers, approval_ttl_seconds: TTL_SECONDS },
    });
    const res = await requestGrant(us, app, key, grantBody(agentId, key), { now: clock.now() });
    expect(res.status).toBe(202);
    return { id: res.body.escalation_id as string, ttlAt: res.body.approval_ttl_at as string };
  }

  const escalation = async (id: string): Promise<Record<string, unknown>> =>
    (await http('GET', `${us}/api/v1/oap/escalations/${id}`, { headers: bearer(app.token) })).body;
  const sweep = (): Promise<number> => stack.process.us.app.get(ExpireDueEscalations).execute();

  async function voteError(id: string): Promise<unknown> {
    try {
      await stack.process.us.app.get(RecordEscalationVote).execute(id, 'user_1', 'approve');
      return undefined;
    } catch (error) {
      return { code: (error as { code?: string }).code, detail: (error as { detail?: unknown }).detail };
    }
  }

  function approvalEvent(id: string, decidedAt: Date): Parameters<ApprovalOutcomesConsumer['handle']>[0] {
    const meta = create(EventMetaSchema, {
      eventId: randomUUID(),
      eventType: 'approval.granted',
      schemaVersion: 1,
      region: 'us',
      applicationId: app.id,
      occurredAt: timestampFromDate(decidedAt),
    });
    const data = toBinary(
      ApprovalDecidedSchema,
      create(ApprovalDecidedSchema, { meta, reference: id, outcome: 'approved', quorumType: 'all', required: 1, approvals: 1 }),
    );
    return { id: meta.eventId, subject: '', eventType: 'approval.granted', data, deliveryCount: 1 };
  }

  it('expires a pending escalation once its approval TTL has passed: status expired, oap.approval_expired published, later votes refused', async () => {
    const { id, ttlAt } = await openEscalation();
    expect(await escalation(id)).toMatchObject({ status: 'pending', approval_ttl_at: ttlAt });

    // The decisions surface opened the approval session with the very same deadline.
    const session = await waitFor(async () => {
      const rows: Array<{ deadline: Date; status: string }> = await db.query(
        `SELECT deadline, status FROM gateway.decision_sessions WHERE reference = $1`,
        [id],
      );
      return rows[0];
    });
    expect(session.deadline.toISOString()).toBe(ttlAt);

    clock.advance(TTL_SECONDS * 1000 - 1_000);
    expect(await sweep()).toBe(0);
    expect((await escalation(id)).status).toBe('pending');

    clock.advance(1_000 + EXPIRY_SETTLE_MS);
    await sweep(); // the process's own sweep (every few seconds) may close it first; either way it is closed once
    const expired = await escalation(id);
    expect(expired).toMatchObject({ status: 'expired', grant_id: null, resolved_at: clock.now().toISOString() });
    expect(expired).not.toHaveProperty('agent_token');

    const rows: Array<{ payload: Buffer }> = await db.query(`SELECT payload FROM oap.outbox WHERE event_type = 'oap.approval_expired'`);
    const published = rows.map((r) => decodeEvent('oap.approval_expired', new Uint8Array(r.payload))).find((e) => e.escalationId === id);
    expect(published).toMatchObject({ escalationId: id, approvalTtlAt: ttlAt, meta: { applicationId: app.id } });
    const resolved: Array<{ payload: Buffer }> = await db.query(
      `SELECT payload FROM oap.outbox WHERE event_type = 'oap.escalation_resolved'`,
    );
    expect(
      resolved.map((r) => decodeEvent('oap.escalation_resolved', new Uint8Array(r.payload))).find((e) => e.escalationId === id),
    ).toMatchObject({ outcome: 'expired' });

    expect(await voteError(id)).toEqual({ code: 'escalation_closed', detail: { status: 'expired' } });
    await stack.process.us.app.get(ApprovalOutcomesConsumer).handle(approvalEvent(id, clock.now()));
    expect((await escalation(id)).status).toBe('expired');
    expect(await sweep()).toBe(0);

    // Both sides agree: the decisions surface's own sweep closes its approval session too.
    await stack.process.us.app.get(ExpireDueSessions).execute();
    const [closed] = await db.query(`SELECT status FROM gateway.decision_sessions WHERE reference = $1`, [id]);
    expect(closed.status).toBe('expired');
  });

  it('refuses a direct vote from the TTL on, even before the sweep has closed the escalation', async () => {
    const { id } = await openEscalation(['user_1', 'user_2']);
    clock.advance(TTL_SECONDS * 1000);
    expect(await voteError(id)).toEqual({ code: 'escalation_closed', detail: { status: 'expired' } });
    expect(await escalation(id)).toMatchObject({ status: 'pending', votes: {} });
    clock.advance(EXPIRY_SETTLE_MS);
    await sweep();
    expect((await escalation(id)).status).toBe('expired');
  });

  it('honours an approval reached on the decisions surface before the TTL that arrives after it, and expires one reached after', async () => {
    const early = await openEscalation();
    const late = await openEscalation();
    const ttl = new Date(early.ttlAt);
    clock.advance(TTL_SECONDS * 1000 + 5_000);
    const consumer = stack.process.us.app.get(ApprovalOutcomesConsumer);
    await consumer.handle(approvalEvent(early.id, new Date(ttl.getTime() - 1_000)));
    await consumer.handle(approvalEvent(late.id, new Date(new Date(late.ttlAt).getTime() + 1_000)));
    expect(await escalation(early.id)).toMatchObject({ status: 'approved', grant_id: expect.stringMatching(/^ath_us_/) });
    expect(await escalation(late.id)).toMatchObject({ status: 'expired', grant_id: null });
  });
});
