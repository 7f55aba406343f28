import { createHash } from 'node:crypto';
import { tokenChangeOf, tokenDigestPrefix } from './token-events';

describe('OAuth token audit events', () => {
  const model = {
    jti: 'an-opaque-token-value-0123456789',
    clientId: 'cli_1',
    accountId: 'usr_us_aaaaaaaaaaaaaaaaaaaa',
    grantId: 'grant-1',
  };

  it('names an issued token by a 16-digit digest prefix, never the token', () => {
    const change = tokenChangeOf('access_token.saved', model, 'access_token');
    expect(change).toEqual({
      type: 'oauth.token_issued',
      clientId: 'cli_1',
      personId: 'usr_us_aaaaaaaaaaaaaaaaaaaa',
      tokenKind: 'access_token',
      grantId: 'grant-1',
      digestPrefix: createHash('sha256').update(model.jti).digest('hex').slice(0, 16),
    });
    expect(JSON.stringify(change)).not.toContain(model.jti);
  });

  it('treats destroyed tokens and revoked grants as revocations; a grant carries no digest', () => {
    expect(tokenChangeOf('refresh_token.destroyed', model, 'refresh_token')).toMatchObject({
      type: 'oauth.token_revoked',
      tokenKind: 'refresh_token',
    });
    expect(tokenChangeOf('grant.revoked', { clientId: 'cli_1', grantId: 'grant-1' }, 'grant')).toEqual({
      type: 'oauth.token_revoked',
      clientId: 'cli_1',
      personId: '',
      tokenKind: 'grant',
      grantId: 'grant-1',
      digestPrefix: '',
    });
    expect(tokenDigestPrefix(undefined)).toBe('');
  });
});
