import { SUPPORTED_LOCALES } from './i18n';
import { PROPOSAL_LOCALES, describeBounds, proposalPageWords } from './authority-bounds-wording';

const BOUNDS = { value_bounds: { currency: 'EUR', per_action: '50.00', aggregate: '200.00' }, escalation_bounds: { amount_over: '20.00' } };
const UNTIL = '2026-12-31T23:00:00.000Z';

describe('describeBounds', () => {
  it('states the value ceilings, the end of validity and the escalation threshold in plain English', () => {
    expect(describeBounds(BOUNDS, UNTIL, 'en')).toEqual([
      'may pay up to 50.00 EUR per action',
      '200.00 EUR in total',
      expect.stringMatching(/^until December 31, 2026/),
      'asking you above 20.00 EUR',
    ]);
  });

  it('states a monthly ceiling between the per-action and the total one', () => {
    const monthly = {
      value_bounds: { currency: 'EUR', per_action: '50.00', per_month: '200.00', aggregate: '1000.00' },
      escalation_bounds: { amount_over: '20.00' },
    };
    expect(describeBounds(monthly, UNTIL, 'en')).toEqual([
      'may pay up to 50.00 EUR per action',
      '200.00 EUR a month',
      '1000.00 EUR in total',
      expect.stringMatching(/^until December 31, 2026/),
      'asking you above 20.00 EUR',
    ]);
    const months: Record<string, string> = {
      en: '200.00 EUR a month',
      fr: '200.00 EUR par mois',
      de: '200.00 EUR im Monat',
      es: '200.00 EUR al mes',
      pt: '200.00 EUR por mês',
      ja: '1か月あたり 200.00 EUR まで',
    };
    expect(Object.keys(months).sort()).toEqual([...PROPOSAL_LOCALES].sort());
    for (const locale of PROPOSAL_LOCALES) expect(describeBounds(monthly, UNTIL, locale)[1]).toBe(months[locale]);
  });

  it('speaks every language of the hosted pages, with the amounts exactly as held', () => {
    expect([...PROPOSAL_LOCALES].sort()).toEqual([...SUPPORTED_LOCALES].sort());
    for (const locale of PROPOSAL_LOCALES) {
      const phrases = describeBounds(BOUNDS, UNTIL, locale);
      expect(phrases).toHaveLength(4);
      expect(phrases.join(' ')).toContain('50.00 EUR');
      expect(phrases.join(' ')).toContain('20.00 EUR');
      expect(phrases.join(' ')).not.toMatch(/\{\w+\}/);
    }
    expect(describeBounds(BOUNDS, UNTIL, 'fr')[0]).toBe('peut payer jusqu’à 50.00 EUR par action');
  });

  it('says when the agent may pay nothing, or anything, and when it asks every time', () => {
    expect(describeBounds({}, UNTIL, 'en')[0]).toBe('may not pay anything');
    expect(describeBounds({ value_bounds: { unrestricted: true }, escalation_bounds: { always: true } }, UNTIL, 'de')).toEqual([
      'darf jeden Betrag zahlen',
      expect.stringMatching(/^bis /),
      'fragt Sie vor jeder Aktion',
    ]);
  });

  it('words the heading and both answers in every language', () => {
    expect(proposalPageWords('Shopper', 'en')).toEqual({ title: 'Shopper asks for your authority', grant: 'Grant', decline: 'Decline' });
    for (const locale of PROPOSAL_LOCALES) expect(proposalPageWords('Shopper', locale).title).toContain('Shopper');
    expect(proposalPageWords('Shopper', 'ja').grant).toBe('許可する');
  });
});
