import type { DomainError } from '@svc/errors';
import { decisionsFromFields } from '../captures/capture';
import type { FlowPurpose } from '../flows/flow';
import { decisionProblems, parseDecisions } from './record-decisions';
import { purposeStatuses, subjectKeys, type ConsentRecord } from './record';

const purpose = (key: string, mechanism: FlowPurpose['mechanism'] = 'consent'): FlowPurpose => ({
  key,
  label: key,
  description: '',
  mechanism,
  required: false,
});
const terms = { purposes: [purpose('newsletter'), purpose('offers'), purpose('account', 'contract')] };
const granted = { decision: 'granted' as const, default_checked: false, mandatory: false };

/** Spec: Consent record decisions; Other rules (refusals by name); Captured consent (status derivation). */
describe('record decisions', () => {
  it('parses decisions keyed by purpose, defaulting the flags to false', () => {
    expect(
      parseDecisions({ newsletter: { decision: 'granted' }, offers: { decision: 'declined', default_checked: false, mandatory: false } }),
    ).toEqual({
      newsletter: granted,
      offers: { decision: 'declined', default_checked: false, mandatory: false },
    });
  });

  it('refuses shapes with 400 naming the field and enumeration breaks with 422', () => {
    const codeOf = (raw: unknown) => {
      try {
        parseDecisions(raw);
        return 'accepted';
      } catch (error) {
        return `${(error as DomainError).code}:${String((error as DomainError).detail?.field)}`;
      }
    };
    expect(codeOf([])).toBe('invalid_request:decisions');
    expect(codeOf({})).toBe('validation_failed:decisions');
    expect(codeOf({ offers: 'granted' })).toBe('invalid_request:decisions.offers');
    expect(codeOf({ offers: { decision: 'granted', extra: 1 } })).toBe('invalid_request:decisions.offers.extra');
    expect(codeOf({ offers: { default_checked: false } })).toBe('invalid_request:decisions.offers.decision');
    expect(codeOf({ offers: { decision: 'yes' } })).toBe('validation_failed:decisions.offers.decision');
    expect(codeOf({ offers: { decision: 'granted', mandatory: 'no' } })).toBe('invalid_request:decisions.offers.mandatory');
    expect(codeOf({ 'Bad Key': { decision: 'granted' } })).toBe('validation_failed:decisions.Bad Key');
  });

  it('lists every refusal by name, consent purposes only', () => {
    expect(
      decisionProblems(terms, {
        newsletter: { ...granted, default_checked: true },
        coupons: granted,
        account: { ...granted, mandatory: true },
      }),
    ).toEqual([
      { reason_code: 'purpose_not_in_flow', purpose: 'coupons' },
      { reason_code: 'consent_purpose_default_checked', purpose: 'newsletter' },
      { reason_code: 'consent_purpose_missing', purpose: 'offers' },
    ]);
    expect(decisionProblems(terms, { newsletter: granted, offers: { ...granted, mandatory: true } })).toEqual([
      { reason_code: 'consent_purpose_mandatory', purpose: 'offers' },
    ]);
  });

  it('maps captured controls to decisions and refuses controls that cannot carry one', () => {
    const field = (p: string, extra: object = {}) => ({
      purpose: p,
      control: 'checkbox',
      checked: true,
      default_checked: false,
      required: false,
      ...extra,
    });
    expect(decisionsFromFields(terms, [field('newsletter'), field('offers', { checked: false })])).toEqual({
      newsletter: granted,
      offers: { decision: 'declined', default_checked: false, mandatory: false },
    });
    expect(() => decisionsFromFields(terms, [field('newsletter', { control: 'select' }), field('offers')])).toThrow(
      'cannot carry a decision',
    );
    expect(() => decisionsFromFields(terms, [field('newsletter', { required: true }), field('offers')])).toThrow('required control');
  });

  it('derives purpose status from withdrawals and expiry', () => {
    const record = {
      id: 'r',
      decisions: { newsletter: granted, offers: granted, account: { ...granted, decision: 'declined' } },
      expiresAt: new Date('2027-01-01T00:00:00Z'),
    } as unknown as ConsentRecord;
    const at = new Date('2026-06-01T00:00:00Z');
    const statuses = purposeStatuses(record, [{ recordId: 'r', purpose: 'offers', channel: 'email_link', withdrawnAt: at }], at);
    expect(statuses.map((s) => [s.purpose, s.status, s.withdrawal_channel])).toEqual([
      ['account', 'declined', null],
      ['newsletter', 'granted', null],
      ['offers', 'withdrawn', 'email_link'],
    ]);
    expect(purposeStatuses(record, [], new Date('2027-01-01T00:00:00Z')).map((s) => s.status)).toEqual(['declined', 'expired', 'expired']);
    expect(subjectKeys({ email: 'A@B.com', external_id: 'x' })).toEqual(['external_id:x', 'email:a@b.com']);
  });
});
