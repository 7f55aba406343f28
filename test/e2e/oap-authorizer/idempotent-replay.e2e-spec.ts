import { randomUUID } from 'node:crypto';
import { http } from '@svc/testing';
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
 * A response replayed for a repeated Idempotency-Key carries `Idempotent-Replayed: true` (IETF
 * Idempotency-Key draft), so a client can tell a replay from a fresh decision; the first answer
 * does not. Spec: OAP grant request (header Idempotency-Key), revocations.
 */
describe('Idempotent-Replayed on replays of grants and revocations', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;
  let agentId: string;

  beforeAll(async () => {
    stack = await startRegions('oap_idempotent_replay', { clock, regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack);
    key = await newAgentKey();
    agentId = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, agentId);
  });
  afterAll(() => stack?.close());

  it('POST /api/v1/grants: the replay of an allow and of a refusal carry the header, the first answers do not', async () => {
    const idempotencyKey = randomUUID();
    const body = grantBody(agentId, key, { valid_until: new Date(clock.now().getTime() + 3600_000).toISOString() });
    const first = await requestGrant(us, app, key, body, { now: clock.now(), idempotencyKey });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const replay = await requestGrant(us, app, key, body, { now: clock.now(), idempotencyKey });
    expect([replay.status, replay.body.grant_id, replay.headers.get('idempotent-replayed')]).toEqual([201, first.body.grant_id, 'true']);

    const deniedKey = randomUUID();
    const denied = grantBody(agentId, key, { valid_until: new Date(clock.now().getTime() + 3600_000).toISOString(), actions: ['refund'] });
    const refusal = await requestGrant(us, app, key, denied, { now: clock.now(), idempotencyKey: deniedKey });
    expect([refusal.status, refusal.headers.get('idempotent-replayed')]).toEqual([403, null]);
    const refusalReplay = await requestGrant(us, app, key, denied, { now: clock.now(), idempotencyKey: deniedKey });
    expect([refusalReplay.status, refusalReplay.body, refusalReplay.headers.get('idempotent-replayed')]).toEqual([
      403,
      refusal.body,
      'true',
    ]);
  });

  it('POST /api/v1/oap/revocations: the replay carries the header', async () => {
    const granted = await requestGrant(
      us,
      app,
      key,
      grantBody(agentId, key, { valid_until: new Date(clock.now().getTime() + 3600_000).toISOString() }),
      { now: clock.now() },
    );
    const headers = { ...bearer(app.token), 'idempotency-key': randomUUID() };
    const first = await http('POST', `${us}/api/v1/oap/revocations`, {
      headers,
      json: { grant_id: granted.body.grant_id, reason: 'compromised' },
    });
    expect([first.status, first.headers.get('idempotent-replayed')]).toEqual([201, null]);
    const replay = await http('POST', `${us}/api/v1/oap/revocations`, {
      headers,
      json: { grant_id: granted.body.grant_id, reason: 'compromised' },
    });
    expect([replay.status, replay.body, replay.headers.get('idempotent-replayed')]).toEqual([201, first.body, 'true']);
  });
});
