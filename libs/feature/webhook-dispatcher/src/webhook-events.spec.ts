import { EVENT_CATALOGUE, WEBHOOK_SOURCE_EVENT_TYPES } from '@svc/contracts';
import { INTAKE_SUBJECT_FILTERS, SUBSCRIBABLE_EVENT_TYPES, intakeSubjectFilters } from './webhook-events';

describe('webhook membership from the event catalogue', () => {
  it('keeps the public webhook types the spec fixes (Events → Webhooks)', () => {
    expect([...SUBSCRIBABLE_EVENT_TYPES].sort()).toEqual(
      [
        'consent.granted',
        'consent.denied',
        'consent.revoked',
        'consent.purpose_revoked',
        'consent.expired',
        'approval.granted',
        'approval.denied',
        'approval.countered',
        'flow.activated',
        'signature.signed',
        'signature.declined',
        'signature.expired',
        'signature.countered',
        'agreement.activated',
        'agreement.declined',
        'agreement.expired',
        'agreement.withdrawn',
        'agreement.amended',
        'agreement.amendment_rejected',
        'collaboration.member_invited',
        'collaboration.member_accepted',
        'collaboration.member_declined',
        'collaboration.member_revoked',
        'delegation.offered',
        'delegation.accepted',
        'delegation.revoked',
        'grant.revoked',
        'authority.revoked',
        'data_request.received',
        'data_request.in_progress',
        'data_request.extended',
        'data_request.completed',
        'data_request.rejected',
        'webhook.delivery_failed',
      ].sort(),
    );
  });

  it('derives the intake filters, and so the durable names, of before (and one for the session outcomes)', () => {
    expect([...INTAKE_SUBJECT_FILTERS].sort()).toEqual(
      [
        'consent.>',
        'consent_session.>',
        'approval.>',
        'flow.activated',
        'signature.>',
        'agreement.>',
        'collaboration.>',
        'delegation.>',
        'grant.revoked',
        'authority.revoked',
        'data_request.>',
        'webhook.delivery_failed',
      ].sort(),
    );
  });

  it('covers every webhook source with a filter', () => {
    const covers = (filter: string, type: string) => (filter.endsWith('.>') ? type.startsWith(filter.slice(0, -1)) : filter === type);
    for (const type of WEBHOOK_SOURCE_EVENT_TYPES) expect(INTAKE_SUBJECT_FILTERS.some((filter) => covers(filter, type))).toBe(true);
  });

  it('uses exact types for an area with one event, or with events that are not webhooks', () => {
    expect(intakeSubjectFilters(['a.one', 'b.one', 'b.two'], ['a.one', 'b.one', 'b.two', 'c.one'])).toEqual(['a.one', 'b.>']);
    expect(intakeSubjectFilters(['b.one'], ['b.one', 'b.two'])).toEqual(['b.one']);
    expect(Object.keys(EVENT_CATALOGUE).length).toBeGreaterThan(WEBHOOK_SOURCE_EVENT_TYPES.length);
  });
});
