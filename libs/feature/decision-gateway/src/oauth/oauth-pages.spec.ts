import { pageLocale, strings } from './oauth-pages';

describe('OpenID provider page languages', () => {
  it('negotiates the six languages of the decision pages, English otherwise', () => {
    expect(['en', 'fr-CA', 'de-DE,en;q=0.5', 'es-MX', 'pt-BR', 'ja'].map((tag) => pageLocale(tag))).toEqual([
      'en',
      'fr',
      'de',
      'es',
      'pt',
      'ja',
    ]);
    expect(pageLocale('it-IT', 'nl')).toBe('en');
    expect(pageLocale(undefined, 'pt')).toBe('pt');
  });

  it('has every string in every language, each translated', () => {
    const english = strings('en');
    for (const locale of ['fr', 'de', 'es', 'pt', 'ja']) {
      const catalogue = strings(locale);
      expect(Object.keys(catalogue).sort()).toEqual(Object.keys(english).sort());
      expect(catalogue.consent_title).not.toBe(english.consent_title);
      expect(catalogue.allow).not.toBe(english.allow);
    }
    expect(strings('de').device_confirm).toContain('{client}');
  });
});
