import { EscalationApprovals } from '@svc/decision-gateway';
import { BusConnection, JetStreamServer, type DeliveredEvent } from '@svc/bus';
import { http, waitFor } from '@svc/testing';
import { DataSource } from 'typeorm';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import { createAgent, createApp, createAuthority, grantBody, newAgentKey, requestGrant, type AgentKey, type TestApp } from './support';

/** The text of every element carrying `data-detail="<name>"` (the page marks each detail so). */
function details(html: string, name: string): string[] {
  const pattern = new RegExp(`<([a-z]+)[^>]*data-detail="${name}"[^>]*>([\\s\\S]*?)</\\1>`, 'g');
  return [...html.matchAll(pattern)].map((m) =>
    m[2]!
      .replace(/\s*<[^>]+>\s*/g, '|')
      .replace(/\|+/g, '|')
      .replace(/^\||\|$/g, '')
      .replace(/&#39;/g, "'"),
  );
}

/**
 * Spec: OAP grant request (escalate: signed approval URL, decision session minted), hosted pages.
 * Issue 14 item 13: the person approving an escalated grant sees every detail of what they
 * approve, and the decision_url handed to the client works at once.
 */
describe('the hosted approval page of an escalated grant', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;
  let db: DataSource;
  const approvalEvents: DeliveredEvent[] = [];

  beforeAll(async () => {
    stack = await startRegions('approval_page', { clock, regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack, 'approval-page');
    key = await newAgentKey();
    db = stack.process.us.app.get(DataSource);
    const subscription = stack.process.us.app.get(BusConnection).nc.subscribe(`${stack.prefix}.us.evt.oap.approval_requested`);
    void (async () => {
      for await (const msg of subscription) {
        approvalEvents.push({
          id: msg.headers?.get('Nats-Msg-Id') ?? '',
          subject: msg.subject,
          eventType: 'oap.approval_requested',
          data: msg.data,
          deliveryCount: 1,
        });
      }
    })();
  });
  afterAll(() => stack?.close());

  it('answers 200 with every detail on 20 requests made right after the grant response, before the approval event is applied', async () => {
    // The decision surface has not applied oap.approval_requested yet (its consumer is held back):
    // the URL handed to the client must work all the same.
    await stack.process.us.app.get(JetStreamServer).hold('decision-gateway-approval-requests');
    const approvals = stack.process.us.app.get(EscalationApprovals);

    const agentId = await createAgent(us, app, { manifest: true, metadata: { agent_provider: 'Acme AI', agent_model: 'shopper-7' } });
    await createAuthority(us, app, agentId, {
      escalation_bounds: { amount_over: '20.00', actions: ['pay'], quorum_type: 'all', approvers: ['user_1'], approval_ttl_seconds: 3600 },
    });
    const grant = await requestGrant(us, app, key, grantBody(agentId, key, { purpose: 'shopping', jurisdiction: 'FR' }), {
      now: clock.now(),
    });
    expect(grant.status).toBe(202);
    const url = grant.body.decision_url as string;
    const pages = await Promise.all(Array.from({ length: 20 }, () => http('GET', url)));
    expect(pages.map((p) => p.status)).toEqual(Array(20).fill(200));

    const html = pages[0]!.text;
    expect(details(html, 'agent_name')).toEqual([`shopper|${agentId}`]);
    expect(details(html, 'agent_provider')).toEqual(['Acme AI']);
    expect(details(html, 'agent_model')).toEqual(['shopper-7']);
    expect(details(html, 'actions')).toEqual(['pay']);
    expect(details(html, 'scope')).toEqual(['payments:write']);
    expect(details(html, 'value')).toEqual(['25.50 EUR']);
    expect(details(html, 'purpose')).toEqual(['shopping']);
    expect(details(html, 'jurisdiction')).toEqual(['FR']);
    expect(details(html, 'triggers')).toEqual([
      'The amount, 25.50 EUR, is above 20.00 EUR: larger amounts need approval.|These actions need approval: pay.',
    ]);
    // Rendered in the page's language and named as UTC; the page script rewrites it in the browser's zone.
    expect(details(html, 'grant_valid_until')).toEqual(['March 4, 2026 at 12:00 PM UTC']);
    expect(details(html, 'deadline')).toHaveLength(1);
    expect(details(html, 'deadline')[0]).toMatch(/^[A-Z][a-z]+ \d{1,2}, \d{4} at \d{1,2}:\d\d [AP]M UTC$/);
    expect(html).not.toMatch(/>value</);

    // The page's own API answers too, and the event arriving afterwards opens nothing twice.
    const token = url.split('/').at(-1)!;
    const state = await http('GET', `${us}/api/v1/decisions/${token}/state`);
    expect(state.body).toMatchObject({
      kind: 'approval',
      status: 'pending',
      trigger_type: 'escalation',
      allowed_actions: ['approve', 'deny', 'counter'],
    });
    const event = await waitFor(() =>
      approvalEvents.find((e) => Buffer.from(e.data).includes(Buffer.from(grant.body.escalation_id as string))),
    );
    expect(await approvals.handle(event)).toBe(false);
    expect(
      await db.query(`SELECT count(*)::int AS n FROM gateway.decision_sessions WHERE reference = $1`, [grant.body.escalation_id]),
    ).toEqual([{ n: 1 }]);
  });

  it('still answers 404 for a token no escalation has', async () => {
    const res = await http('GET', `${us}/decisions/${'A'.repeat(43)}`);
    expect(res.status).toBe(404);
  });
});
