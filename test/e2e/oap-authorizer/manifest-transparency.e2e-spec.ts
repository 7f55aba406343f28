import { http } from '@svc/testing';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import { createAgent, createApp, publishManifest, type TestApp } from './support';

/**
 * Spec: well-known `/.well-known/transparency/agents/:agent_id/manifests/:version`; issue 17 item 8:
 * every published capability manifest version is served, anonymously, as it was published.
 */
describe('published capability manifest versions', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: TestApp;

  beforeAll(async () => {
    stack = await startRegions('manifest_transparency', { clock, regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack, 'manifests');
  });
  afterAll(() => stack?.close());

  const manifest = (agentId: string, version: string) =>
    http<Record<string, unknown>>('GET', `${us}/.well-known/transparency/agents/${agentId}/manifests/${version}`);

  it('serves each version anonymously, the earlier one too, and marks the current one', async () => {
    const agentId = await createAgent(us, app);
    const first = (await publishManifest(us, app, agentId, ['pay'])).body;
    clock.advance(1_000);
    const second = (await publishManifest(us, app, agentId, ['pay', 'quote'])).body;

    const old = await manifest(agentId, first.version_id as string);
    expect(old.status).toBe(200);
    expect(old.body).toEqual({
      object: 'capability_manifest',
      agent_id: agentId,
      version: first.version_id,
      current: false,
      scopes: [
        { id: 'payments:read', label: 'Read payments', parent: 'payments:write', custom: false, status: 'active' },
        { id: 'payments:write', label: 'Make payments', parent: null, custom: false, status: 'active' },
      ],
      actions: ['pay'],
      manifest_sha256: first.manifest_sha256,
      published_at: first.published_at,
    });
    const now = await manifest(agentId, second.version_id as string);
    expect(now.body).toMatchObject({
      version: second.version_id,
      current: true,
      actions: ['pay', 'quote'],
      manifest_sha256: second.manifest_sha256,
    });
  });

  it("answers the same 404 for an unknown version, another agent's version and malformed identifiers", async () => {
    const a = await createAgent(us, app);
    const b = await createAgent(us, app);
    const version = (await publishManifest(us, app, a)).body.version_id as string;
    for (const [agentId, v] of [
      [b, version],
      [a, 'tpcv_us_zzzzzzzzzzzzzzzzzzzz'],
      [a, '1'],
      ['nope', version],
    ] as const) {
      const res = await manifest(agentId, v);
      expect([res.status, res.body.reason_code]).toEqual([404, 'manifest_not_found']);
    }
  });
});
