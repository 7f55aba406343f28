import { isAuditWorthy } from './audit-worthy';

/** Spec "What the service does" 6; issue 9 Deliver 1. */
describe('isAuditWorthy', () => {
  it.each([
    'consent.granted',
    'consent.withdrawn',
    'approval.decided',
    'signature.captured',
    'grant.allowed',
    'grant.receipt_issued',
    'authority.updated',
    'attestation.witnessed',
    'escalation.opened',
    'revocation.published',
    'webhook.delivery_failed',
    'flow.activated',
    'oap.approval_requested',
    'oap.escalation_resolved',
    'oap.approval_expired',
    'trusted_attester.changed',
    'person.created',
    'person.sign_in_failures',
    'oauth.token_issued',
    'oauth.token_revoked',
  ])('records %s', (type) => expect(isAuditWorthy(type)).toBe(true));

  it.each(['application.created', 'oap.agent_registered', 'keys.signing_key_rotated', 'webhook.delivered', 'audit.checkpoint_signed', 'consentx.granted', '', 'webhook.delivery_failed.x', 'oauth.client_registered'])(
    'ignores %j',
    (type) => expect(isAuditWorthy(type)).toBe(false),
  );
});
