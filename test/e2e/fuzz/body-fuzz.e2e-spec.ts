import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { AccountsRepository, CreateApplication, CreateApplicationCommand, ManageAccountTokens } from '@svc/decision-gateway';
import { regionOpenApiDocument } from '@svc/region-stack';
import { http } from '@svc/testing';
import { createAgent, createAuthority, dpopProof, grantBody, newAgentKey, type AgentKey } from '../oap-authorizer/support';
import { startMailDev, type MailDev } from '../support/mail';
import { startRegions, type TestRegions } from '../support/regions';
import { mutatedRequests, type FuzzRequest } from './mutations';
import { valueOf, type Schema } from './schema-values';

/** Fixed so a failure replays; change it to explore other inputs. */
const SEED = 20261125;
const REQUESTS_PER_OPERATION = 110;
const CONCURRENCY = 4;

interface Operation {
  method: string;
  path: string;
  schema: string;
  security: Array<Record<string, string[]>>;
}

const document = regionOpenApiDocument() as {
  paths: Record<
    string,
    Record<string, { requestBody?: { content: Record<string, { schema: { $ref: string } }> }; security: Operation['security'] }>
  >;
  components: { schemas: Record<string, Schema> };
};
const operations: Operation[] = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods)
    .filter(([, op]) => op.requestBody !== undefined)
    .map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      schema: op.requestBody!.content['application/json']!.schema.$ref.split('/').pop()!,
      security: op.security,
    })),
);

interface Failure {
  operation: string;
  kind: string;
  status: number;
  body: string;
}

function isEnvelope(body: unknown): boolean {
  const envelope = body as { message?: unknown; reason_code?: unknown } | null;
  return typeof envelope?.message === 'string' && typeof envelope.reason_code === 'string';
}

async function inPool<T>(items: readonly T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await run(items[next++]!);
    }),
  );
}

/**
 * Issue 14, done-when: every body-taking operation of the OpenAPI document gets generated bad
 * input (malformed, deep, U+0000, lone surrogates, nulls, wrong types, unknown fields, odd
 * top-level values, oversize, wrong Content-Type, missing or wrong credentials); no answer is a
 * 5xx and every 4xx carries the error envelope.
 */
describe('fuzzing every body-taking operation', () => {
  let mail: MailDev;
  let stack: TestRegions;
  let us: string;
  let apiToken: string;
  let publishableKey: string;
  let attesterToken: string;
  let accountToken: string;
  let agentKey: AgentKey;
  const pathValues: Record<string, string> = {};
  const seeds: Record<string, () => unknown> = {};

  beforeAll(async () => {
    // Sign-in codes go to a real SMTP sink, as in every configured deployment.
    mail = await startMailDev();
    stack = await startRegions('fuzz', { regions: ['us'], env: { SMTP_URL: mail.smtpUrl } });
    us = stack.url.us;
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'fuzz', environment: 'development' }));
    apiToken = created.apiToken;
    publishableKey = created.publishableKey;
    const app = { id: created.application.id, token: apiToken };
    // An account owning the application, and an admin account token for the account routes.
    const accounts = stack.process.us.app.get(AccountsRepository);
    const account = await accounts.transaction(async (manager) => {
      const inserted = await accounts.insertAccount(manager, `acc_us_${'a'.repeat(20)}`, 'fuzz account', new Date());
      await accounts.setApplicationAccount(manager, app.id, inserted.id);
      return inserted;
    });
    accountToken = (await stack.process.us.app.get(ManageAccountTokens).issue(account.id, 'fuzz', 'admin')).token;
    agentKey = await newAgentKey();
    // Grants get an agent of their own with one authority, so that fuzzing the authorities routes
    // (which creates, suspends and revokes authorities) leaves grant requests reaching the cascade.
    const grantAgentId = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, grantAgentId);
    const agentId = await createAgent(us, app, { manifest: true });
    const authorityId = await createAuthority(us, app, agentId);
    const auth = { authorization: `Bearer ${apiToken}` };
    const attester = await http<{ trusted_attester: { id: string; token: string } }>('POST', `${us}/api/v1/trusted_attesters`, {
      headers: auth,
      json: { name: 'engine', permissions: ['attestations:submit', 'attestations:heartbeat', 'escalations:create'] },
    });
    attesterToken = attester.body.trusted_attester.token;
    const flowBody = { name: 'fuzz flow', locale: 'en', presentation: { title: 'Fuzz' }, purposes: [{ key: 'news', label: 'News' }] };
    const flow = await http('POST', `${us}/api/v1/flows`, { headers: auth, json: flowBody });
    expect([attester.status, flow.status]).toEqual([201, 201]);
    Object.assign(pathValues, {
      account_id: account.id,
      application_id: app.id,
      agent_id: agentId,
      authority_id: authorityId,
      attester_id: attester.body.trusted_attester.id,
      flow_id: flow.body.id as string,
    });
    Object.assign(seeds, {
      'POST /api/v1/grants': () => grantBody(grantAgentId, agentKey, { valid_until: new Date(Date.now() + 3_600_000).toISOString() }),
      'POST /api/v1/authorities': () => ({
        agent_id: agentId,
        principal_id: 'user_1',
        scope_bounds: { allowed: ['payments:*'] },
        action_bounds: { allowed: ['pay'] },
        value_bounds: { currency: 'EUR', per_action: '100.00', aggregate: '1000' },
        purposes: ['shopping'],
        valid_until: '2027-06-01T00:00:00Z',
      }),
      'POST /api/v1/flows': () => flowBody,
      'POST /api/v1/applications/{application_id}/api_tokens': () => ({ name: 'fuzz token', scopes: ['consent:write'] }),
      'POST /api/v1/trusted_attesters/{attester_id}/rotate': () => ({ overlap_seconds: 60 }),
      // A person of the region (another region's person needs that region up, which this stack is not: 503).
      'POST /api/v1/applications/{application_id}/support_reads': () => ({
        person_id: `usr_us_${'a'.repeat(20)}`,
        purpose: 'fuzz support case',
      }),
    });
  });
  afterAll(async () => {
    await stack?.close();
    await mail?.stop();
  });

  async function send(operation: Operation, request: FuzzRequest): Promise<{ status: number; body: unknown; text: string }> {
    const url = `${us}${operation.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => pathValues[name] ?? `${name.replace(/_id$|_token$/, '')}_us_aaaaaaaaaaaaaaaaaaaaaaaa`)}`;
    const headers: Record<string, string> = { 'idempotency-key': randomUUID() };
    if (request.contentType !== null) headers['content-type'] = request.contentType;
    const kinds = operation.security.flatMap((s) => Object.keys(s));
    if (request.auth !== 'missing') {
      const wrong = request.auth === 'wrong';
      if (kinds.includes('apiToken')) headers.authorization = `Bearer ${wrong ? 'svc_test_wrong' : apiToken}`;
      else if (kinds.includes('accountToken')) headers.authorization = `Bearer ${wrong ? 'acct_wrong' : accountToken}`;
      else if (kinds.includes('publishableKey')) headers['x-publishable-key'] = wrong ? 'pk_test_wrong' : publishableKey;
      else if (operation.path.startsWith('/api/v1/oap/attestations'))
        headers.authorization = `Bearer ${wrong ? 'tat_us_wrong' : attesterToken}`;
      if (operation.path === '/api/v1/grants') headers.dpop = await dpopProof(agentKey, 'POST', url, { now: new Date() });
    }
    // Without a Content-Type header, fetch must not add its own text/plain one: send bytes.
    const body = request.contentType === null && typeof request.body === 'string' ? Buffer.from(request.body) : request.body;
    const response = await fetch(url, { method: operation.method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: fails the envelope check below when it is an error.
    }
    return { status: response.status, body: parsed, text };
  }

  it('covers the body-taking operations of the OpenAPI document', () => {
    expect(operations.length).toBeGreaterThanOrEqual(37);
  });

  it.each(operations.map((op, index) => [`${op.method} ${op.path}`, op, index] as const))(
    '%s: no 5xx, every 4xx an envelope',
    async (name, operation, index) => {
      const seed = seeds[name]
        ? fc.constant(null).map(() => seeds[name]!())
        : valueOf({ $ref: `#/components/schemas/${operation.schema}` }, document.components.schemas);
      const requests = fc.sample(mutatedRequests(seed), { seed: SEED + index, numRuns: REQUESTS_PER_OPERATION });
      const failures: Failure[] = [];
      await inPool(requests, CONCURRENCY, async (request) => {
        const res = await send(operation, request);
        if (res.status >= 500 || (res.status >= 400 && !isEnvelope(res.body))) {
          failures.push({ operation: name, kind: request.kind, status: res.status, body: res.text.slice(0, 300) });
        }
      });
      expect(requests.length).toBeGreaterThanOrEqual(100);
      expect(failures).toEqual([]);
    },
    300_000,
  );
});
