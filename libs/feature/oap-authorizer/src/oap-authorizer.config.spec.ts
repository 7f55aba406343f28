import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '@svc/config';
import { OapAuthorizerConfig } from './oap-authorizer.config';

const platform = {
  REGION: 'us',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/svc_us',
  KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};
const issuers = { agent_credential_issuers: [{ iss: 'https://idp.example', jwks_uri: 'https://idp.example/jwks' }] };

function refusal(values: Record<string, string>): ConfigError {
  try {
    loadConfig(OapAuthorizerConfig, { ...platform, ...values });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('OapAuthorizerConfig: the trust lists are checked with every other variable at boot', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'oap-trust-lists-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has empty lists when neither variable is set', () => {
    expect(loadConfig(OapAuthorizerConfig, platform).trustLists()).toEqual({ agent_credential_issuers: [], attestation_providers: [] });
  });

  it('reads the inline document, or the file, which wins', () => {
    expect(
      loadConfig(OapAuthorizerConfig, { ...platform, OAP_TRUST_LISTS: JSON.stringify(issuers) }).trustLists().agent_credential_issuers,
    ).toEqual(issuers.agent_credential_issuers);
    const file = join(dir, 'trust-lists.json');
    writeFileSync(file, JSON.stringify({ attestation_providers: issuers.agent_credential_issuers }));
    const config = loadConfig(OapAuthorizerConfig, { ...platform, OAP_TRUST_LISTS_FILE: file, OAP_TRUST_LISTS: JSON.stringify(issuers) });
    expect(config.trustLists()).toEqual({ agent_credential_issuers: [], attestation_providers: issuers.agent_credential_issuers });
  });

  it.each([
    ['OAP_TRUST_LISTS', { OAP_TRUST_LISTS: '{not json' }],
    ['OAP_TRUST_LISTS', { OAP_TRUST_LISTS: JSON.stringify({ agent_credential_issuers: [{ iss: 'x' }] }) }],
    ['OAP_TRUST_LISTS_FILE', { OAP_TRUST_LISTS_FILE: '/nonexistent/trust-lists.json', OAP_TRUST_LISTS: JSON.stringify(issuers) }],
  ])('refuses a bad %s by name', (name, values) => {
    expect(refusal(values).variables).toEqual([name]);
  });
});
