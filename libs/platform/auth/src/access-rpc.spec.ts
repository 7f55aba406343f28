import { create } from '@bufbuild/protobuf';
import { ResolvedAccessReplySchema } from '@svc/contracts';
import { accessReplyOf, credentialOfAccessReply } from './access-rpc';
import type { ResolvedCredential } from './principal';

function roundTrip(credential: ResolvedCredential | null): ResolvedCredential | null {
  return credentialOfAccessReply(create(ResolvedAccessReplySchema, accessReplyOf(credential)));
}

describe('access credential replies', () => {
  it('carries a person access token with its authorization details unchanged', () => {
    const token: ResolvedCredential = {
      kind: 'access_token',
      applicationId: 'app_1',
      credentialId: 'client_1',
      scopes: ['openid'],
      environment: 'production',
      region: 'eu',
      mode: 'conductor',
      personId: 'usr_eu_1',
      authorizationDetails: [{ type: 'openid_credential', nested: { a: [1, 2] } }],
    };
    expect(roundTrip(token)).toEqual(token);
  });

  it('carries an account token with its account and role', () => {
    const token: ResolvedCredential = {
      kind: 'account_token',
      applicationId: '',
      credentialId: 'act_1',
      scopes: [],
      environment: 'production',
      region: 'eu',
      mode: 'conductor',
      account: { id: 'acc_1', role: 'auditor' },
    };
    expect(roundTrip(token)).toEqual(token);
  });

  it('reads "not found", another kind, an unknown role or malformed details as no credential', () => {
    expect(roundTrip(null)).toBeNull();
    const base = {
      found: true,
      kind: 'access_token',
      applicationId: 'a',
      credentialId: 'c',
      environment: 'production',
      region: 'eu',
      mode: 'conductor',
    };
    expect(credentialOfAccessReply(create(ResolvedAccessReplySchema, { ...base, kind: 'api_token' }))).toBeNull();
    expect(credentialOfAccessReply(create(ResolvedAccessReplySchema, { ...base, accountId: 'acc_1', accountRole: 'root' }))).toBeNull();
    expect(credentialOfAccessReply(create(ResolvedAccessReplySchema, { ...base, authorizationDetailsJson: '{"type":"x"}' }))).toBeNull();
    expect(credentialOfAccessReply(create(ResolvedAccessReplySchema, { ...base, authorizationDetailsJson: '[1]' }))).toBeNull();
    expect(credentialOfAccessReply(create(ResolvedAccessReplySchema, { ...base, authorizationDetailsJson: '[{' }))).toBeNull();
  });
});
