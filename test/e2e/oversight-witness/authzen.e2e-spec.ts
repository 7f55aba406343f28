import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import { http } from '@svc/testing';
import { AttestersRepository, AuthZenAttestationAdapter, type AuthZenEvaluationRequest } from '@svc/oversight-witness';
import { bearer, createApp, createAttester, setMode, startOversightStack, verifyWitnessReceipt, type OversightStack } from './support';

/**
 * A tiny OpenID AuthZEN Authorization API 1.0 PDP: `POST /access/v1/evaluation` with
 * `{subject, action, resource, context}` answers `{decision: boolean}` (here: permit `can_read`
 * for any subject, and `can_pay` only for subject id `alice`). Anything else is 404/400, like a
 * real PDP would refuse it.
 */
function startPdp(): Promise<{
  url: string;
  seen: Array<{ headers: IncomingMessage['headers']; body: AuthZenEvaluationRequest }>;
  mode: { fail?: number; garbage?: boolean };
  close(): Promise<void>;
}> {
  const seen: Array<{ headers: IncomingMessage['headers']; body: AuthZenEvaluationRequest }> = [];
  const mode: { fail?: number; garbage?: boolean } = {};
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/access/v1/evaluation') {
        res.writeHead(404).end();
        return;
      }
      if (mode.fail) {
        res.writeHead(mode.fail, { 'content-type': 'application/json' }).end('{"error":"boom"}');
        return;
      }
      if (mode.garbage) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"decision":"PERMIT"}');
        return;
      }
      let body: AuthZenEvaluationRequest;
      try {
        body = JSON.parse(raw) as AuthZenEvaluationRequest;
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (!body.subject?.type || !body.subject.id || !body.action?.name || !body.resource?.type || !body.resource.id) {
        res.writeHead(400).end();
        return;
      }
      seen.push({ headers: req.headers, body });
      const decision = body.action.name === 'can_read' || (body.action.name === 'can_pay' && body.subject.id === 'alice');
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ decision, context: { reason_admin: { en: decision ? 'policy permits' : 'not allowed' } } }));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, seen, mode, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

/** Beyond the spec: an AuthZEN 1.0 PDP as the Oversight-mode engine, through the same SubmitAttestation use case. */
describe('AuthZEN 1.0 interop adapter', () => {
  let stack: OversightStack;
  let pdp: Awaited<ReturnType<typeof startPdp>>;
  let app: { id: string; token: string };
  let attesterId: string;
  let engineToken: string;
  let seq = 0;

  beforeAll(async () => {
    stack = await startOversightStack('ow_authzen');
    pdp = await startPdp();
    app = await createApp(stack);
    await setMode(stack, app, 'oversight');
    const engine = await createAttester(stack, app);
    attesterId = engine.id;
    engineToken = engine.token;
  });
  afterAll(async () => {
    await pdp?.close();
    await stack?.close();
  });

  async function attester() {
    const found = (await stack.process.app.get(AttestersRepository).list(app.id, 10)).find((a) => a.id === attesterId);
    if (!found) throw new Error('attester missing');
    return found;
  }

  function request(subjectId: string, action: string, overrides: Record<string, unknown> = {}) {
    seq += 1;
    return {
      pdpBaseUrl: pdp.url,
      environment: 'development' as const,
      evaluation: {
        subject: { type: 'user', id: subjectId, properties: { department: 'finance' } },
        action: { name: action },
        resource: { type: 'account', id: 'acct-9' },
        context: { time: '2026-03-01T10:00:00Z' },
      },
      attestationId: `authzen-${seq}-${Date.now()}`,
      applicationId: app.id,
      agentClass: 'authzen-agent',
      sequenceNumber: seq,
      legalBasis: 'contract' as const,
      ...overrides,
    };
  }

  it('turns decision true into a witnessed allow whose evidence_digest is SHA-256 of the canonical request+response', async () => {
    const input = request('alice', 'can_pay');
    const result = await stack.process.app.get(AuthZenAttestationAdapter).execute(await attester(), input);
    const call = pdp.seen[pdp.seen.length - 1];
    expect(call?.body).toEqual(input.evaluation);
    expect(call?.headers['content-type']).toBe('application/json');
    expect(call?.headers['x-request-id']).toBe(input.attestationId);
    const response = { decision: true, context: { reason_admin: { en: 'policy permits' } } };
    expect(result.pdpDecision).toBe(true);
    expect(result.evidenceDigest).toBe(sha256Hex(canonicalJson({ request: input.evaluation, response })));
    expect(result.attestation).toMatchObject({
      decision: 'allow',
      status: 'witnessed',
      actionClass: 'can_pay',
      evidenceDigest: result.evidenceDigest,
      sequenceNumber: seq,
    });

    const verified = await verifyWitnessReceipt(stack, result.attestation.receipt);
    expect(verified.payload).toMatchObject({
      decision: 'allow',
      iss_role: 'witness',
      sub: result.attestation.id,
      policy_ref: `authzen:${pdp.url}`,
    });
    const read = await http('GET', `${stack.url}/api/v1/oap/attestations/${result.attestation.id}`, { headers: bearer(engineToken) });
    expect(read.body).toMatchObject({
      attestation: { evidence_digest: result.evidenceDigest, context: { authzen: { subject: { type: 'user', id: 'alice' } } } },
    });
  });

  it('turns decision false into a witnessed deny', async () => {
    const result = await stack.process.app.get(AuthZenAttestationAdapter).execute(await attester(), request('bob', 'can_pay'));
    expect(result.pdpDecision).toBe(false);
    expect(result.attestation.decision).toBe('deny');
    expect((await verifyWitnessReceipt(stack, result.attestation.receipt)).payload).toMatchObject({ decision: 'deny' });
  });

  it('is idempotent like the HTTP endpoint: a retry with the same decided_at replays, a later decision time is a reuse (409)', async () => {
    const adapter = stack.process.app.get(AuthZenAttestationAdapter);
    const input = request('carol', 'can_read', { decidedAt: '2026-03-01T09:59:00Z' });
    const first = await adapter.execute(await attester(), input);
    expect(first.idempotentReplay).toBe(false);
    stack.clock.advance(1000);
    const retry = await adapter.execute(await attester(), input);
    expect(retry.idempotentReplay).toBe(true);
    expect(retry.attestation.receipt).toBe(first.attestation.receipt);
    await expect(adapter.execute(await attester(), { ...input, decidedAt: undefined })).rejects.toMatchObject({
      code: 'attestation_id_reused',
    });
  });

  it('attests nothing when the PDP fails: non-200 and non-boolean decisions are authzen_response_invalid, an unreachable PDP authzen_pdp_unreachable', async () => {
    const adapter = stack.process.app.get(AuthZenAttestationAdapter);
    const before: Array<{ n: string }> = await stack.dataSource.query(`SELECT count(*) AS n FROM oversight.attestations`);
    pdp.mode.fail = 500;
    await expect(adapter.execute(await attester(), request('alice', 'can_pay'))).rejects.toMatchObject({
      code: 'authzen_response_invalid',
      kind: 'unavailable',
    });
    pdp.mode.fail = undefined;
    pdp.mode.garbage = true;
    await expect(adapter.execute(await attester(), request('alice', 'can_pay'))).rejects.toMatchObject({
      code: 'authzen_response_invalid',
    });
    pdp.mode.garbage = false;
    await expect(
      adapter.execute(await attester(), request('alice', 'can_pay', { pdpBaseUrl: 'http://127.0.0.1:1' })),
    ).rejects.toMatchObject({ code: 'authzen_pdp_unreachable' });
    const after: Array<{ n: string }> = await stack.dataSource.query(`SELECT count(*) AS n FROM oversight.attestations`);
    expect(after[0]?.n).toBe(before[0]?.n);
  });

  it('applies the attestation rules to what it synthesises (422 naming the field)', async () => {
    const adapter = stack.process.app.get(AuthZenAttestationAdapter);
    await expect(adapter.execute(await attester(), request('alice', 'can_read', { agentClass: 'c'.repeat(129) }))).rejects.toMatchObject({
      code: 'validation_failed',
      detail: expect.objectContaining({ field: 'agent_class' }),
    });
    await expect(adapter.execute(await attester(), request('alice', 'x'.repeat(65)))).rejects.toMatchObject({
      code: 'validation_failed',
      detail: expect.objectContaining({ field: 'action_class' }),
    });
  });
});
