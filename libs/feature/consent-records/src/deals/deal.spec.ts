import { DEAL_STATES, effectiveState, nextState, termsOutsideLicense, type DealTerms } from './deal';

/** Spec: "Data deal" states; the triggers are ours (deal.ts). */
describe('data deal triggers', () => {
  it('walks draft → offered → user_revised → countered → accepted with each side answering the other', () => {
    expect(nextState('draft', 'send', 'application')).toBe('offered');
    expect(nextState('offered', 'revise', 'person')).toBe('user_revised');
    expect(nextState('user_revised', 'counter', 'application')).toBe('countered');
    expect(nextState('countered', 'revise', 'person')).toBe('user_revised');
    expect(nextState('countered', 'accept', 'person')).toBe('accepted');
    expect(nextState('user_revised', 'accept', 'application')).toBe('accepted');
  });

  it('lets no side accept its own terms, and nothing move a closed deal', () => {
    expect(nextState('offered', 'accept', 'application')).toBeUndefined();
    expect(nextState('user_revised', 'accept', 'person')).toBeUndefined();
    expect(nextState('countered', 'counter', 'application')).toBeUndefined();
    for (const closed of ['accepted', 'declined', 'expired'] as const) {
      for (const move of ['send', 'counter', 'revise', 'accept', 'decline'] as const) {
        expect(nextState(closed, move, 'person')).toBeUndefined();
        expect(nextState(closed, move, 'application')).toBeUndefined();
      }
    }
    expect(DEAL_STATES).toEqual(['draft', 'offered', 'countered', 'user_revised', 'accepted', 'declined', 'expired']);
  });

  it('expires an open offer at expires_at, never a draft or a closed deal', () => {
    const at = new Date('2026-01-02T00:00:00Z');
    expect(effectiveState('offered', at, new Date('2026-01-01T23:59:59Z'))).toBe('offered');
    expect(effectiveState('countered', at, at)).toBe('expired');
    expect(effectiveState('accepted', at, new Date('2027-01-01T00:00:00Z'))).toBe('accepted');
    expect(effectiveState('draft', null, new Date('2027-01-01T00:00:00Z'))).toBe('draft');
  });

  it('keeps proposed terms within the licence', () => {
    const license: DealTerms = {
      purposes: ['analytics', 'ads'],
      data_categories: ['usage'],
      duration: 'P1Y',
      price: null,
      recipients: [{ party_id: 'acme', name: 'Acme' }],
    };
    expect(termsOutsideLicense({ ...license, purposes: ['analytics'] }, license)).toBeUndefined();
    expect(termsOutsideLicense({ ...license, purposes: ['resale'] }, license)).toEqual({ field: 'purposes', value: 'resale' });
    expect(termsOutsideLicense({ ...license, data_categories: ['location'] }, license)).toEqual({
      field: 'data_categories',
      value: 'location',
    });
    expect(termsOutsideLicense({ ...license, recipients: [{ party_id: 'other', name: 'Other' }] }, license)).toEqual({
      field: 'recipients',
      value: 'other',
    });
  });
});
