import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { RpcClient } from '@svc/bus';
import { CreateApplication, CreateApplicationCommand, decisionGatewayFeature } from '@svc/decision-gateway';
import { residencyProxyFeature, residencyRouterFeature } from '@svc/residency-router';
import { startProcess, type RunningProcess } from '@svc/server';
import { createTestDatabase, deleteTestStreams, freePort, http, testEnv, uniqueBusPrefix, waitFor, type TestDatabase } from '@svc/testing';

const ROOT = join(__dirname, '..', '..', '..');

jest.setTimeout(180_000);

/**
 * Issue 18 item 3 in distributed mode: each service is its own process, the residency router has
 * no database, and the transfer register is served by the audit-chain app (apps/audit-chain, run
 * as is). Through the router an application records and lists crossings and reads their audit
 * entries; another service's process records a crossing over the bus (`residency.record_transfer`).
 */
describe('transfer register in distributed mode (us region: router, decision-gateway, audit-chain processes)', () => {
  const prefix = uniqueBusPrefix();
  let database: TestDatabase;
  let gateway: RunningProcess;
  let router: RunningProcess;
  let audit: ChildProcess;
  let auditOutput = '';
  let base: string;
  let token: string;
  let applicationId: string;
  const auth = () => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    database = await createTestDatabase('xfer_distributed_us');
    const [routerPort, gatewayPort, auditPort] = [await freePort(), await freePort(), await freePort()];
    base = `http://127.0.0.1:${routerPort}`;
    const service = (name: string, port: number) =>
      testEnv({
        REGION: 'us',
        DATABASE_URL: database.url,
        BUS_PREFIX: prefix,
        HTTP_PORT: String(port),
        PUBLIC_BASE_URL: base,
        SERVICE_NAME: name,
      });
    gateway = await startProcess({ features: [decisionGatewayFeature], env: service('decision-gateway', gatewayPort) });
    // The audit-chain app exactly as deployed: its own process, its own entry point.
    audit = spawn(process.execPath, [join(ROOT, 'scripts', 'run-ts.js'), join(ROOT, 'apps', 'audit-chain', 'src', 'main.ts')], {
      cwd: ROOT,
      env: service('audit-chain', auditPort),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    audit.stdout?.on('data', (chunk: Buffer) => (auditOutput += chunk.toString()));
    audit.stderr?.on('data', (chunk: Buffer) => (auditOutput += chunk.toString()));
    await waitFor(async () => {
      if (audit.exitCode !== null) throw new Error(`audit-chain exited ${audit.exitCode}: ${auditOutput}`);
      return (await http('GET', `http://127.0.0.1:${auditPort}/readyz`).catch(() => undefined))?.status === 200 || undefined;
    }, 150_000);
    // The router: only its own variables (no database, no bus), proxying to the two services.
    router = await startProcess({
      features: [residencyProxyFeature, residencyRouterFeature],
      env: {
        REGION: 'us',
        HTTP_PORT: String(routerPort),
        LOG_LEVEL: 'silent',
        SERVICE_NAME: 'residency-router',
        SERVICE_URLS: `decision-gateway=http://127.0.0.1:${gatewayPort},audit-chain=http://127.0.0.1:${auditPort}`,
      },
      bodyParser: false,
    });
    const created = await gateway.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'distributed-register', environment: 'development' }));
    token = created.apiToken;
    applicationId = created.application.id;
  });

  afterAll(async () => {
    await router?.close();
    if (audit && audit.exitCode === null) {
      const exited = new Promise((resolve) => audit.once('exit', resolve));
      audit.kill('SIGTERM');
      await exited;
    }
    await gateway?.close();
    await database?.drop();
    await deleteTestStreams(prefix);
  });

  it('records a crossing through the router before it happens, lists it and serves its audit entry', async () => {
    const crossing = {
      data_categories: ['contact_data'],
      to_country: 'DE',
      recipient: 'Support operations (eu region)',
      purpose: 'answer a support request the person opened',
      lawful_basis: 'standard_contractual_clauses',
      transfer_case: 'support_operator',
      reference: 'ticket-distributed-1',
    };
    const { lawful_basis: _omitted, ...withoutBasis } = crossing;
    const refused = await http('POST', `${base}/api/v1/transfer_register`, { headers: auth(), json: withoutBasis });
    expect([refused.status, refused.body.reason_code]).toEqual([422, 'lawful_basis_required']);

    const res = await http<{ id: string; audit_entry_id: string; from_country: string }>('POST', `${base}/api/v1/transfer_register`, {
      headers: auth(),
      json: crossing,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ from_country: 'US', to_country: 'DE', adequacy_verdict: 'eea' });
    const list = await http<{ data: Array<{ id: string }> }>('GET', `${base}/api/v1/transfer_register`, { headers: auth() });
    expect(list.body.data.map((row) => row.id)).toEqual([res.body.id]);
    const entry = await http<{ type: string }>('GET', `${base}/api/v1/audit/entries/${res.body.audit_entry_id}`, { headers: auth() });
    expect([entry.status, entry.body.type]).toEqual([200, 'residency.transfer_recorded']);
    const posture = await http('GET', `${base}/api/v1/residency_posture`, { headers: auth() });
    expect([posture.status, posture.body.object]).toEqual([200, 'residency_posture']);
  });

  it('records a crossing another service process declares over the bus', async () => {
    const reply = await gateway.app.get(RpcClient).call('residency.record_transfer', {
      applicationId,
      dataCategories: ['delegation_grants'],
      toCountry: 'JP',
      recipient: 'ap region delegate service',
      purpose: 'a delegate in ap acts for the person',
      lawfulBasis: 'adequacy_decision',
      transferCase: 'delegate_in_other_region',
      reference: 'dlg-distributed-1',
    });
    expect(reply).toMatchObject({ transferId: expect.stringMatching(/^xfr_/), adequacyVerdict: 'adequate' });
    const list = await http<{ data: Array<{ id: string }> }>('GET', `${base}/api/v1/transfer_register?to_country=JP`, { headers: auth() });
    expect(list.body.data.map((row) => row.id)).toEqual([reply.transferId]);
  });
});
