import { createHash } from 'node:crypto';
import { BusConnection } from '@svc/bus';
import { ApprovalRequestedSchema, decodeSealedEvent } from '@svc/contracts';
import { OutboxRegistry } from '@svc/server';
import { http, waitFor } from '@svc/testing';
import { AttestersRepository, ResolveEscalation } from '@svc/oversight-witness';
import {
  attestationBody,
  bearer,
  createApp,
  createAttester,
  setMode,
  startOversightStack,
  submit,
  verifyWitnessReceipt,
  type OversightStack,
} from './support';

/**
 * Spec: "For origin attestation the three outcomes" (approve, deny, counter); Attestation request
 * `requires_human_approval`; the approval session is decision-gateway's (oversight.approval_requested →
 * decision session; approval.granted/denied/countered → back here).
 */
describe('Escalated attestations', () => {
  let stack: OversightStack;
  let app: { id: string; token: string };
  let engine: { id: string; token: string };
  let seq = 0;

  beforeAll(async () => {
    stack = await startOversightStack('ow_escalation');
    app = await createApp(stack);
    await setMode(stack, app, 'oversight');
    engine = await createAttester(stack, app);
  });
  afterAll(() => stack?.close());

  async function escalate(overrides: Record<string, unknown> = {}) {
    seq += 1;
    const res = await submit(
      stack,
      engine.token,
      attestationBody(app.id, { agent_class: 'wire-agent', sequence_number: seq, context: { principal_id: 'user-42' }, ...overrides }),
    );
    expect(res.status).toBe(201);
    return res as typeof res & {
      body: {
        attestation: { id: string; status: string };
        receipt: string;
        escalation: { decision_url: string; session_token: string; approval_ttl_at: string };
      };
    };
  }

  const readAttestation = (id: string) =>
    http<{ attestation: Record<string, unknown>; receipt: string; resolution_receipt: string | null }>(
      'GET',
      `${stack.url}/api/v1/oap/attestations/${id}`,
      {
        headers: bearer(engine.token),
      },
    );

  /** The decision page move on the session decision-gateway opened from our oversight.approval_requested. */
  async function decide(sessionToken: string, body: Record<string, unknown>) {
    await waitFor(async () => (await http('GET', `${stack.url}/api/v1/decisions/${sessionToken}/state`)).status === 200, 15_000);
    const res = await http('POST', `${stack.url}/api/v1/decisions/${sessionToken}/transitions`, { json: body });
    expect(res.status).toBe(200);
  }

  async function resolved(id: string, status: string) {
    return waitFor(async () => {
      const res = await readAttestation(id);
      return res.body.attestation.status === status ? res.body : undefined;
    }, 15_000);
  }

  it('opens a human approval for requires_human_approval: pending, escalate receipt, decision_url + session_token, oversight.approval_requested', async () => {
    const res = await escalate({ decision: 'allow', requires_human_approval: true });
    expect(res.body.attestation).toMatchObject({ status: 'pending_approval', decision: 'allow' });
    const { escalation } = res.body;
    expect(escalation.session_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(escalation.decision_url).toBe(`https://us.svc.example/decisions/${escalation.session_token}`);
    expect(escalation.approval_ttl_at).toBe(new Date(stack.clock.now().getTime() + 86_400_000).toISOString());
    const verified = await verifyWitnessReceipt(stack, res.body.receipt);
    expect(verified.payload).toMatchObject({ decision: 'escalate', sub: res.body.attestation.id, iss_role: 'witness' });

    const rows: Array<{ payload: Buffer }> = await stack.dataSource.query(
      `SELECT payload FROM oversight.outbox WHERE event_type = 'oversight.approval_requested'`,
    );
    // The principal travels sealed: absent from the bytes on the bus, present to a holder of the region key.
    expect(rows.some((r) => r.payload.includes('user-42'))).toBe(false);
    const personalData = stack.process.app.get(BusConnection).personalData;
    const requested = rows
      .map((r) => decodeSealedEvent(ApprovalRequestedSchema, new Uint8Array(r.payload), personalData))
      .find((e) => e.escalationId === res.body.attestation.id);
    expect(requested).toMatchObject({
      principalId: 'user-42',
      approvers: ['user-42'],
      quorumType: 'all',
      decisionUrl: escalation.decision_url,
      sessionTokenSha256: createHash('sha256').update(escalation.session_token).digest('hex'),
      meta: { applicationId: app.id },
    });
    const request = JSON.parse(requested?.requestJson ?? '{}') as Record<string, unknown>;
    expect(request).toMatchObject({
      kind: 'oversight_attestation',
      attestation_id: res.body.attestation.id,
      agent_class: 'wire-agent',
      context: { principal_id: 'user-42' },
    });
  });

  it('approve: the attestation completes as approved with a second witnessed receipt', async () => {
    const res = await escalate({ decision: 'escalate' });
    await decide(res.body.escalation.session_token, { action: 'approve' });
    const done = await resolved(res.body.attestation.id, 'approved');
    expect(done.receipt).toBe(res.body.receipt);
    const verified = await verifyWitnessReceipt(stack, done.resolution_receipt as string);
    expect(verified.payload).toMatchObject({ decision: 'approved', sub: res.body.attestation.id, iss_role: 'witness' });
    expect(Buffer.byteLength(done.resolution_receipt as string)).toBeLessThan(2048);

    const replay = await submit(
      stack,
      engine.token,
      attestationBody(app.id, {
        agent_class: 'wire-agent',
        sequence_number: seq,
        context: { principal_id: 'user-42' },
        decision: 'escalate',
        attestation_id: done.attestation.attestation_id,
      }),
    );
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({
      attestation: { idempotent_replay: true, status: 'approved' },
      receipt: res.body.receipt,
      escalation: { status: 'approved' },
    });
    expect(replay.body).not.toHaveProperty('escalation.session_token');
  });

  it('deny: the attestation completes as denied with a witnessed receipt', async () => {
    const res = await escalate({ decision: 'escalate' });
    await decide(res.body.escalation.session_token, { action: 'deny' });
    const done = await resolved(res.body.attestation.id, 'denied');
    const verified = await verifyWitnessReceipt(stack, done.resolution_receipt as string);
    expect(verified.payload).toMatchObject({ decision: 'denied', sub: res.body.attestation.id });
  });

  it('counter: the counter-proposal reaches the policy engine on its next attestation of the same agent class, once', async () => {
    const res = await escalate({ decision: 'escalate' });
    await decide(res.body.escalation.session_token, { action: 'counter', counter_proposal: { amount: '50.00', currency: 'EUR' } });
    const done = await resolved(res.body.attestation.id, 'countered');
    expect(done.attestation.counter_proposal).toEqual({ amount: '50.00', currency: 'EUR' });
    expect((await verifyWitnessReceipt(stack, done.resolution_receipt as string)).payload).toMatchObject({ decision: 'countered' });

    seq += 1;
    const otherClass = await submit(stack, engine.token, attestationBody(app.id, { agent_class: 'other-agent', sequence_number: 1 }));
    expect(otherClass.body).not.toHaveProperty('counter_proposals');
    const next = await submit(stack, engine.token, attestationBody(app.id, { agent_class: 'wire-agent', sequence_number: seq }));
    expect(next.status).toBe(201);
    expect(next.body.counter_proposals).toEqual([
      {
        attestation: res.body.attestation.id,
        attestation_id: done.attestation.attestation_id,
        counter_proposal: { amount: '50.00', currency: 'EUR' },
        countered_at: expect.any(String),
      },
    ]);
    seq += 1;
    const after = await submit(stack, engine.token, attestationBody(app.id, { agent_class: 'wire-agent', sequence_number: seq }));
    expect(after.body).not.toHaveProperty('counter_proposals');
  });

  it('ignores approval outcomes whose reference is not an attestation, and resolves through the bus from any publisher', async () => {
    const res = await escalate({ decision: 'escalate' });
    const gatewayOutbox = stack.process.app.get(OutboxRegistry).writer('gateway');
    await stack.dataSource.transaction(async (manager) => {
      await gatewayOutbox.add(
        manager,
        'approval.granted',
        { reference: 'esc_not_ours', outcome: 'approved', sessionToken: '' },
        { applicationId: app.id },
      );
      await gatewayOutbox.add(
        manager,
        'approval.denied',
        { reference: res.body.attestation.id, outcome: 'denied', sessionToken: '' },
        { applicationId: app.id },
      );
    });
    const done = await resolved(res.body.attestation.id, 'denied');
    expect(done.resolution_receipt).toEqual(expect.any(String));
  });

  describe('ResolveEscalation use case', () => {
    it('refuses to resolve twice (409 escalation_not_pending) or across applications (404), and never resolves a plain attestation', async () => {
      const resolve = stack.process.app.get(ResolveEscalation);
      const pending = await escalate({ decision: 'escalate' });
      await resolve.execute({ applicationId: app.id, attestationId: pending.body.attestation.id, outcome: 'approved' });
      await expect(
        resolve.execute({ applicationId: app.id, attestationId: pending.body.attestation.id, outcome: 'denied' }),
      ).rejects.toMatchObject({ code: 'escalation_not_pending' });
      const another = await escalate({ decision: 'escalate' });
      await expect(
        resolve.execute({ applicationId: `tp_us_${'b'.repeat(20)}`, attestationId: another.body.attestation.id, outcome: 'approved' }),
      ).rejects.toMatchObject({ code: 'attestation_not_found' });
      seq += 1;
      const plain = await submit(stack, engine.token, attestationBody(app.id, { agent_class: 'wire-agent', sequence_number: seq }));
      await expect(
        resolve.execute({ applicationId: app.id, attestationId: (plain.body.attestation as { id: string }).id, outcome: 'approved' }),
      ).rejects.toMatchObject({ code: 'escalation_not_pending' });
    });
  });

  it('a suspended attester cannot read its attestations back (403)', async () => {
    const attesters = stack.process.app.get(AttestersRepository);
    const temp = await createAttester(stack, app);
    const res = await http('POST', `${stack.url}/api/v1/trusted_attesters/${temp.id}/suspend`, { headers: bearer(app.token) });
    expect(res.status).toBe(200);
    expect((await attesters.list(app.id, 100)).some((a) => a.id === temp.id && a.status === 'suspended')).toBe(true);
    const pending = await escalate({ decision: 'escalate' });
    const read = await http('GET', `${stack.url}/api/v1/oap/attestations/${pending.body.attestation.id}`, { headers: bearer(temp.token) });
    expect(read.status).toBe(403);
    expect(read.body).toMatchObject({ reason_code: 'attester_suspended' });
  });
});
