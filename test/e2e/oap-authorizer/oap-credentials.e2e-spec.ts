import { createHash } from 'node:crypto';
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
 * Spec: well-known `/.well-known/oap-credentials/:id`; issue 17 item 8: the public status of the
 * credential (runtime receipt) issued with a grant, as it changes, and never the token.
 */
describe('/.well-known/oap-credentials/:id', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;

  beforeAll(async () => {
    stack = await startRegions('oap_credentials', { clock, regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack, 'oap-credentials');
    key = await newAgentKey();
  });
  afterAll(() => stack?.close());

  const credential = (id: string) => http<Record<string, unknown>>('GET', `${us}/.well-known/oap-credentials/${id}`);

  it('shows an issued credential anonymously (receipt jti and digest, what it covers), then its revocation', async () => {
    const agentId = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, agentId);
    clock.advance(10_000);
    const grant = await requestGrant(us, app, key, grantBody(agentId, key), { now: clock.now() });
    expect(grant.status).toBe(201);
    const id = grant.body.grant_id as string;
    const receipt = grant.body.grant_attestation as string;
    const jti = (JSON.parse(Buffer.from(receipt.split('.')[1]!, 'base64url').toString('utf8')) as { jti: string }).jti;

    const active = await credential(id);
    expect(active.status).toBe(200);
    expect(active.body).toEqual({
      object: 'oap_credential',
      id,
      status: 'active',
      receipt_jti: jti,
      receipt_sha256: createHash('sha256').update(receipt).digest('hex'),
      agent_id: agentId,
      scope: ['payments:write'],
      actions: ['pay'],
      issued_at: clock.now().toISOString(),
      valid_until: '2026-03-04T12:00:00.000Z',
      revoked_at: null,
      consumed_at: null,
      verify_url: `${us}/.well-known/svc-verify`,
      revocation_list_url: `${us}/.well-known/oap-revocation-list`,
    });
    expect(active.text).not.toContain(receipt);
    expect(active.text).not.toContain(grant.body.agent_token as string);

    expect((await http('POST', `${us}/api/v1/oap/revocations`, { headers: bearer(app.token), json: { grant_id: id } })).status).toBe(201);
    const revoked = await credential(id);
    expect(revoked.body).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });

    const later = await requestGrant(us, app, key, grantBody(agentId, key), { now: clock.now() });
    clock.advance(2 * 3600_000);
    expect((await credential(later.body.grant_id as string)).body).toMatchObject({ status: 'expired' });
  });

  it('answers one 404 for an unknown or malformed id', async () => {
    for (const id of ['ath_us_zzzzzzzzzzzzzzzzzzzzzzzz', 'nope']) {
      const res = await credential(id);
      expect([res.status, res.body.reason_code]).toEqual([404, 'grant_not_found']);
    }
  });
});
