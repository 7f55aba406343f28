import type { ReceiptDocument } from '@svc/receipts';
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

/**
 * Spec: receipt event states ("authority exercised"); issue 17 item 7: each exercise of an
 * authority (a grant issued under it) appends an `authority exercised` audit entry and receipt event.
 */
describe('an authority exercised', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;
  let db: DataSource;

  beforeAll(async () => {
    stack = await startRegions('authority_exercised', { clock, regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack, 'authority-exercised');
    key = await newAgentKey();
    db = stack.process.us.app.get(DataSource);
  });
  afterAll(() => stack?.close());

  it('appends one audit entry and one receipt event per grant issued, none for a denial', async () => {
    const agentId = await createAgent(us, app, { manifest: true });
    const authorityId = await createAuthority(us, app, agentId);
    clock.advance(10_000);
    for (const _ of [1, 2]) {
      const res = await requestGrant(us, app, key, grantBody(agentId, key), { now: clock.now() });
      expect(res.status).toBe(201);
    }
    const denied = await requestGrant(us, app, key, grantBody(agentId, key, { actions: ['refund'] }), { now: clock.now() });
    expect(denied.status).toBe(403);

    const entries = await waitFor(async () => {
      const rows: Array<{ agent_id: string; canonical: string }> = await db.query(
        `SELECT agent_id, canonical FROM audit.entries WHERE entry_type = 'authority.exercised' AND application_id = $1 ORDER BY idx`,
        [app.id],
      );
      return rows.length === 2 ? rows : undefined;
    }, 15_000);
    expect(entries.map((e) => e.agent_id)).toEqual([agentId, agentId]);
    expect(entries.every((e) => e.canonical.includes(authorityId))).toBe(true);

    const receipt = await waitFor(async () => {
      const res = await http('GET', `${us}/api/v1/authorization_receipts/${authorityId}`, { headers: bearer(app.token) });
      const events = res.status === 200 ? (res.body as unknown as ReceiptDocument).event : [];
      return events.filter((e) => e.event_state === 'authority exercised').length === 2 ? events : undefined;
    }, 15_000);
    expect(receipt.map((e) => e.event_state)).toEqual(['authority granted', 'authority exercised', 'authority exercised']);
    expect(receipt.filter((e) => e.event_state === 'authority exercised').map((e) => e.entity_id)).toEqual([agentId, agentId]);
  });
});
