import { DomainError } from '@svc/errors';
import { evaluationOf } from './evaluate-grant.use-case';
import { checkCredentialHeader, checkPolicyEngineUrl, credentialHeaders } from './policy-engine';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof DomainError ? `${error.code}:${String(error.detail?.field)}` : 'other';
  }
  return undefined;
}

describe('policy engine configuration', () => {
  it.each([
    ['https://pdp.example.com/', 'production', 'https://pdp.example.com'],
    ['https://pdp.example.com/authz/', 'production', 'https://pdp.example.com/authz'],
    ['http://127.0.0.1:8181', 'development', 'http://127.0.0.1:8181'],
    ['http://localhost:8181/', 'development', 'http://localhost:8181'],
  ] as const)('normalises %s (%s) to %s', (raw, environment, expected) => {
    expect(checkPolicyEngineUrl(raw, environment)).toBe(expected);
  });

  it.each([
    ['not a url', 'production'],
    ['ftp://pdp.example.com', 'production'],
    ['http://pdp.example.com', 'development'],
    ['http://127.0.0.1:8181', 'production'],
    ['https://user:pass@pdp.example.com', 'production'],
    ['https://pdp.example.com/?tenant=1', 'production'],
    ['https://pdp.example.com/#x', 'production'],
  ] as const)('refuses %s (%s), naming url', (raw, environment) => {
    expect(codeOf(() => checkPolicyEngineUrl(raw, environment))).toBe('policy_engine_url_invalid:url');
  });

  it('accepts a header token name (lower-cased) but not one the call sets itself, nor a malformed one', () => {
    expect(checkCredentialHeader('X-Api-Key')).toBe('x-api-key');
    for (const name of ['content-type', 'Host', 'x-request-id', 'bad header', 'x:y']) {
      expect(codeOf(() => checkCredentialHeader(name))).toBe('policy_engine_credential_invalid:credential_header');
    }
  });

  it('authenticates the engine call as configured', () => {
    expect(credentialHeaders({ credentialType: 'none', credentialHeader: null }, null)).toEqual({});
    expect(credentialHeaders({ credentialType: 'bearer', credentialHeader: null }, 's3cret')).toEqual({ authorization: 'Bearer s3cret' });
    expect(credentialHeaders({ credentialType: 'header', credentialHeader: 'x-api-key' }, 's3cret')).toEqual({ 'x-api-key': 's3cret' });
  });
});

describe('the AuthZEN 1.0 evaluation of a grant request (one per action)', () => {
  const command = {
    applicationId: 'tp_us_app',
    environment: 'development' as const,
    agentClass: 'autonomous',
    agentId: 'agent_us_abc',
    scopes: ['payments:write'],
    actions: ['pay', 'quote'],
    validUntil: '2026-03-04T12:00:00.000Z',
    requestId: 'r-1',
  };

  it('names the agent with its class as subject, the action, and the agent with the requested bounds as resource', () => {
    expect(
      evaluationOf(
        { ...command, value: { amount: '25.50', currency: 'EUR' }, purpose: 'shopping' },
        'quote',
        new Date('2026-03-04T10:00:00Z'),
      ),
    ).toEqual({
      subject: { type: 'agent', id: 'agent_us_abc', properties: { agent_class: 'autonomous', application_id: 'tp_us_app' } },
      action: { name: 'quote' },
      resource: {
        type: 'agent',
        id: 'agent_us_abc',
        properties: {
          scopes: ['payments:write'],
          valid_until: '2026-03-04T12:00:00.000Z',
          value: { amount: '25.50', currency: 'EUR' },
          purpose: 'shopping',
        },
      },
      context: { request_id: 'r-1', time: '2026-03-04T10:00:00.000Z' },
    });
  });

  it('names the authority as resource when the request names one', () => {
    expect(evaluationOf({ ...command, authorityId: 'auth_us_1' }, 'pay', new Date(0)).resource).toMatchObject({
      type: 'authority',
      id: 'auth_us_1',
    });
  });
});
