import { http, waitFor } from '@svc/testing';
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
} from '../oap-authorizer/support';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';

type Json = Record<string, unknown>;

/**
 * Issue 22, Done when (second test): vouches made through the API raise an agent's trust score over
 * its authority's `reputation_bounds` and the grant is allowed; revoking one brings the score back
 * under and the grant is denied at cascade step 9, the denial naming the threshold.
 */
describe('vouches and trust scores drive cascade step 9 through the API', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let owner: TestApp;
  let partner: TestApp;
  let auditor: TestApp;
  let key: AgentKey;
  let agentId: string;

  const vouch = (by: TestApp, json: Json, headers: Record<string, string> = {}) =>
    http('POST', `${us}/api/v1/vouches`, { headers: { ...bearer(by.token), ...headers }, json });
  const score = async () => (await http('GET', `${us}/api/v1/trust_scores/${agentId}`, { headers: bearer(owner.token) })).body;
  const grant = () => requestGrant(us, owner, key, grantBody(agentId, key), { now: clock.now() });

  beforeAll(async () => {
    stack = await startRegions('verify_vouches', { clock, regions: ['us'] });
    us = stack.url.us;
    owner = await createApp(stack, 'owner');
    partner = await createApp(stack, 'partner');
    auditor = await createApp(stack, 'auditor');
    key = await newAgentKey();
    agentId = await createAgent(us, owner, { manifest: true });
    await createAuthority(us, owner, agentId, { reputation_bounds: { min_trust_score: 50, min_vouch_count: 2 } });
  });
  afterAll(() => stack?.close());

  it('denies at step 9 with no vouches, naming the threshold that failed', async () => {
    expect(await score()).toMatchObject({ object: 'trust_score', subject: agentId, score: 0, vouch_count: 0 });
    const res = await grant();
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      decision: 'deny',
      cascade_step: 9,
      denial_category: 'intent_denied',
      reason_code: 'reputation_below_threshold',
    });
    expect(res.body.message).toContain('min_trust_score 50');
  });

  let partnerVouch: string;
  let auditorVouch: string;

  it('two vouches raise the score over the threshold and the grant is allowed', async () => {
    const expiresAt = '2026-06-01T00:00:00Z';
    const first = await vouch(
      partner,
      { subject: agentId, weight: 30, reason_code: 'successful_transactions', expires_at: expiresAt },
      { 'idempotency-key': 'v-1' },
    );
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      object: 'vouch',
      voucher: { type: 'application', id: partner.id },
      subject: agentId,
      subject_type: 'agent',
      weight: 30,
      status: 'active',
    });
    partnerVouch = first.body.id as string;
    expect(partnerVouch).toMatch(/^vch_us_[a-z2-7]{20}$/);
    // Idempotency-Key replays; a second active vouch of the same voucher for the subject is refused.
    const replay = await vouch(
      partner,
      { subject: agentId, weight: 30, reason_code: 'successful_transactions', expires_at: expiresAt },
      { 'idempotency-key': 'v-1' },
    );
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(partnerVouch);
    const again = await vouch(partner, { subject: agentId, weight: 50, reason_code: 'other', expires_at: expiresAt });
    expect(again.status).toBe(409);
    expect(again.body.reason_code).toBe('vouch_already_active');

    const second = await vouch(auditor, { subject: agentId, weight: 30, reason_code: 'security_review', expires_at: expiresAt });
    expect(second.status).toBe(201);
    auditorVouch = second.body.id as string;
    expect(await score()).toMatchObject({
      score: 60,
      vouch_count: 2,
      inputs: { vouch_count: 2, vouch_weight_total: 60, allowed_grants_90d: 0, attestations_90d: 0, revoked_grants_90d: 0, denials_30d: 0 },
      formula_version: '2',
    });

    const res = await grant();
    expect(res.status).toBe(201);
    expect(res.body.decision).toBe('allow');
    expect(await score()).toMatchObject({ score: 61, inputs: { allowed_grants_90d: 1 } });
  });

  it('a revoked vouch brings the score back under and the grant is denied at step 9', async () => {
    const revoked = await http('POST', `${us}/api/v1/vouches/${auditorVouch}/revoke`, { headers: bearer(auditor.token), json: {} });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: auditorVouch, status: 'revoked' });
    // Another application cannot revoke (or see) it.
    expect((await http('POST', `${us}/api/v1/vouches/${partnerVouch}/revoke`, { headers: bearer(auditor.token), json: {} })).status).toBe(
      404,
    );
    expect(await score()).toMatchObject({ score: 31, vouch_count: 1 });

    const res = await grant();
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      decision: 'deny',
      cascade_step: 9,
      denial_category: 'intent_denied',
      reason_code: 'reputation_below_threshold',
    });
    expect(res.body.message).toContain('min_trust_score 50');
    const listed = await http('GET', `${us}/api/v1/vouches?subject=${agentId}`, { headers: bearer(auditor.token) });
    expect((listed.body.data as Json[]).map((entry) => [entry.id, entry.status])).toEqual([[auditorVouch, 'revoked']]);
  });

  it('refuses a subject that is not an agent of the region, and a vouch expiring in the past', async () => {
    const unknown = await vouch(partner, {
      subject: 'agent_us_aaaaaaaaaaaaaaaaaaaa',
      weight: 10,
      reason_code: 'other',
      expires_at: '2026-06-01T00:00:00Z',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.reason_code).toBe('vouch_subject_not_found');
    const past = await vouch(partner, { subject: agentId, weight: 10, reason_code: 'other', expires_at: '2026-01-01T00:00:00Z' });
    expect(past.status).toBe(422);
  });

  it('the agent\'s application, and only it, can offer a "registered agent" credential for it', async () => {
    const offer = await waitFor(async () => {
      const res = await http('POST', `${us}/api/v1/credentials/offers`, {
        headers: bearer(owner.token),
        json: { credential_type: 'registered_agent', agent_id: agentId },
      });
      return res.status === 201 ? res : undefined;
    });
    expect(offer.body).toMatchObject({
      credential_type: 'registered_agent',
      credential_offer: { credential_issuer: us, credential_configuration_ids: ['registered_agent'] },
    });
    const foreign = await http('POST', `${us}/api/v1/credentials/offers`, {
      headers: bearer(partner.token),
      json: { credential_type: 'registered_agent', agent_id: agentId },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.reason_code).toBe('credential_subject_not_found');
  });

  it('stops one party from flooding: 50 vouches per voucher per UTC day, then 429', async () => {
    const flooder = await createApp(stack, 'flooder');
    const agents = await Promise.all(Array.from({ length: 51 }, () => createAgent(us, owner)));
    const answers: number[] = [];
    for (const subject of agents)
      answers.push((await vouch(flooder, { subject, weight: 1, reason_code: 'other', expires_at: '2026-06-01T00:00:00Z' })).status);
    expect(answers.slice(0, 50).every((status) => status === 201)).toBe(true);
    expect(answers[50]).toBe(429);
    const limited = await vouch(flooder, { subject: agents[50]!, weight: 1, reason_code: 'other', expires_at: '2026-06-01T00:00:00Z' });
    expect(limited.body.reason_code).toBe('vouch_daily_limit_reached');
    // The next UTC day starts 13.5 hours after the test clock's 10:30.
    expect(limited.headers.get('retry-after')).toBe(String(13.5 * 3600));
  });
});
