import {
  AUDITED_EVENT_TYPES,
  EVENT_CATALOGUE,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_SOURCE_EVENT_TYPES,
  eventTypesProducedBy,
  isAuditedEventType,
  webhookTypesOf,
  type EventType,
} from '../index';

const TYPES = Object.keys(EVENT_CATALOGUE) as EventType[];

describe('event catalogue', () => {
  it('gives every event one line of meaning', () => {
    for (const type of TYPES) expect(EVENT_CATALOGUE[type].meaning).toMatch(/^[A-Z][^\n]{10,200}$/);
  });

  it('audits what the audit chain recorded before the catalogue (spec "What the service does" 6; issue 9 Deliver 1)', () => {
    const prefixes = [
      'consent.',
      'consent_session.',
      'approval.',
      'signature.',
      'grant.',
      'authority.',
      'attestation.',
      'person.',
      'delegation.',
      'data_request.',
    ];
    const exact = [
      'webhook.delivery_failed',
      'flow.activated',
      'oap.approval_requested',
      'oversight.approval_requested',
      'oap.escalation_resolved',
      'oap.approval_expired',
      'trusted_attester.changed',
      'oauth.token_issued',
      'oauth.token_revoked',
    ];
    for (const type of TYPES)
      expect([type, isAuditedEventType(type)]).toEqual([type, exact.includes(type) || prefixes.some((prefix) => type.startsWith(prefix))]);
    expect(AUDITED_EVENT_TYPES).toContain('consent.recorded');
    expect(AUDITED_EVENT_TYPES).not.toContain('audit.checkpoint_signed');
    expect(isAuditedEventType('consent.test_only_granted')).toBe(false);
    expect(isAuditedEventType('')).toBe(false);
  });

  it('delivers record events under the public names of the spec, and the others under their own', () => {
    expect(webhookTypesOf('consent.recorded')).toEqual(['consent.granted', 'consent.denied']);
    expect(webhookTypesOf('consent.record_revoked')).toEqual(['consent.revoked']);
    expect(webhookTypesOf('consent_session.granted')).toEqual(['consent.granted']);
    expect(webhookTypesOf('grant.decided')).toEqual([]);
    expect(webhookTypesOf('no.such_event')).toEqual([]);
    expect(WEBHOOK_EVENT_TYPES).not.toContain('consent.recorded');
    expect(WEBHOOK_SOURCE_EVENT_TYPES).toContain('consent.recorded');
    expect(new Set(WEBHOOK_EVENT_TYPES).size).toBe(WEBHOOK_EVENT_TYPES.length);
  });

  it('names a public webhook only through an event that is delivered', () => {
    for (const type of TYPES) {
      const webhook = EVENT_CATALOGUE[type].webhook;
      if (typeof webhook === 'object') expect(webhook.as.length).toBeGreaterThan(0);
    }
  });

  it('keeps each area with one producer, and the consent record events apart from the session ones', () => {
    expect(eventTypesProducedBy('consent-records').filter((type) => type.startsWith('consent.'))).toEqual([
      'consent.recorded',
      'consent.purpose_revoked',
      'consent.record_revoked',
      'consent.expired',
    ]);
    expect(eventTypesProducedBy('decision-gateway').filter((type) => type.startsWith('consent'))).toEqual([
      'consent_session.granted',
      'consent_session.denied',
      'consent_session.revoked',
    ]);
    // One producer per prefix: a consumer filtering `<prefix>.>` (`consent.>`, `consent_session.>`) takes one service's facts.
    const producersByPrefix = new Map<string, Set<string>>();
    for (const type of TYPES) {
      const prefix = type.split('.')[0]!;
      producersByPrefix.set(prefix, (producersByPrefix.get(prefix) ?? new Set()).add(EVENT_CATALOGUE[type].producer));
    }
    expect([...producersByPrefix].filter(([, producers]) => producers.size > 1)).toEqual([]);
    expect(producersByPrefix.get('consent')).toEqual(new Set(['consent-records']));
    expect(producersByPrefix.get('consent_session')).toEqual(new Set(['decision-gateway']));
    expect(eventTypesProducedBy('oversight-witness')).toContain('oversight.approval_requested');
  });
});
