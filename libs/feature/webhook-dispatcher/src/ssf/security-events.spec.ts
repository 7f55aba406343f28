import { create, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  AuthorityChangedSchema,
  DelegationGrantChangedSchema,
  EventMetaSchema,
  GrantRevokedSchema,
  OAuthTokenChangedSchema,
} from '@svc/contracts';
import { CAEP_SESSION_REVOKED, CAEP_TOKEN_CLAIMS_CHANGE, securityEventOf } from './security-events';

const APP = 'tp_us_aaaaaaaaaaaaaaaaaaaa';
const ISSUER = 'https://us.api.example';
const occurredAt = new Date('2026-11-28T10:00:00.000Z');
const meta = (type: string, applicationId = APP) =>
  create(EventMetaSchema, {
    eventId: `evt-${type}`,
    eventType: type,
    schemaVersion: 1,
    region: 'us',
    applicationId,
    occurredAt: timestampFromDate(occurredAt),
  });
const at = Math.floor(occurredAt.getTime() / 1000);

describe('Shared Signals: which revocation becomes which CAEP event', () => {
  it('grant.revoked → session-revoked of the grant (opaque subject), at the revocation time', () => {
    const data = toBinary(
      GrantRevokedSchema,
      create(GrantRevokedSchema, { meta: meta('grant.revoked'), grantId: 'ath_us_grant', revokedAt: '2026-11-28T09:59:00.000Z' }),
    );
    expect(securityEventOf('bus-1', 'grant.revoked', data, ISSUER)).toEqual({
      sourceEventId: 'evt-grant.revoked',
      applicationId: APP,
      type: CAEP_SESSION_REVOKED,
      subject: { format: 'opaque', id: 'ath_us_grant' },
      payload: { event_timestamp: at - 60, initiating_entity: 'admin' },
    });
  });

  it('authority.revoked → token-claims-change of the authority, claims naming the new status', () => {
    const data = toBinary(
      AuthorityChangedSchema,
      create(AuthorityChangedSchema, {
        meta: meta('authority.revoked'),
        authorityId: 'ath_us_auth',
        agentId: 'agent_us_1',
        status: 'revoked',
      }),
    );
    expect(securityEventOf('bus-2', 'authority.revoked', data, ISSUER)).toMatchObject({
      type: CAEP_TOKEN_CLAIMS_CHANGE,
      subject: { format: 'opaque', id: 'ath_us_auth' },
      payload: { event_timestamp: at, claims: { oap_authority_status: 'revoked', oap_agent_id: 'agent_us_1' } },
    });
  });

  it('delegation.revoked → session-revoked, complex subject: the delegate (iss_sub) and the delegation grant', () => {
    const data = toBinary(
      DelegationGrantChangedSchema,
      create(DelegationGrantChangedSchema, {
        meta: meta('delegation.revoked'),
        delegationGrantId: 'dlg_us_1',
        delegateId: 'usr_us_d',
        principalId: 'usr_us_p',
        status: 'revoked',
      }),
    );
    expect(securityEventOf('bus-3', 'delegation.revoked', data, ISSUER)).toMatchObject({
      type: CAEP_SESSION_REVOKED,
      subject: {
        format: 'complex',
        user: { format: 'iss_sub', iss: ISSUER, sub: 'usr_us_d' },
        session: { format: 'opaque', id: 'dlg_us_1' },
      },
    });
  });

  it('oauth.token_revoked of a whole grant → session-revoked; a single token destroyed is no session revocation', () => {
    const grant = toBinary(
      OAuthTokenChangedSchema,
      create(OAuthTokenChangedSchema, {
        meta: meta('oauth.token_revoked'),
        clientId: 'oac_1',
        personId: 'usr_us_p',
        tokenKind: 'grant',
        grantId: 'g-1',
      }),
    );
    expect(securityEventOf('bus-4', 'oauth.token_revoked', grant, ISSUER)).toMatchObject({
      type: CAEP_SESSION_REVOKED,
      subject: { format: 'complex', user: { format: 'iss_sub', iss: ISSUER, sub: 'usr_us_p' }, session: { format: 'opaque', id: 'g-1' } },
    });
    const rotated = toBinary(
      OAuthTokenChangedSchema,
      create(OAuthTokenChangedSchema, {
        meta: meta('oauth.token_revoked'),
        clientId: 'oac_1',
        personId: 'usr_us_p',
        tokenKind: 'refresh_token',
        grantId: 'g-1',
      }),
    );
    expect(securityEventOf('bus-5', 'oauth.token_revoked', rotated, ISSUER)).toBeUndefined();
  });

  it('yields nothing for an event without an application or of another type', () => {
    const data = toBinary(GrantRevokedSchema, create(GrantRevokedSchema, { meta: meta('grant.revoked', ''), grantId: 'ath_us_grant' }));
    expect(securityEventOf('bus-6', 'grant.revoked', data, ISSUER)).toBeUndefined();
    expect(securityEventOf('bus-7', 'grant.decided', data, ISSUER)).toBeUndefined();
  });
});
