import { PlatformConfig } from '@svc/config';
import { personCountries } from './people.config';
import { PEOPLE_LOCALES, peopleCatalogue, peopleLocale, peopleText } from './people-i18n';
import { EMAIL_CODE_DIGITS, digestsEqual, emailCodeDigest, emailCodeKey, newEmailCode, safeReturnTo, sessionCookie } from './person';

describe('email codes', () => {
  it('are 6 digits, spread over the whole range', () => {
    const codes = Array.from({ length: 2_000 }, () => newEmailCode());
    expect(codes.every((c) => new RegExp(`^\\d{${EMAIL_CODE_DIGITS}}$`).test(c))).toBe(true);
    expect(new Set(codes).size).toBeGreaterThan(1_990);
    expect(codes.some((c) => c.startsWith('0'))).toBe(true);
  });

  it('are digested under a key of the region and bound to their challenge', () => {
    const kek = Buffer.alloc(32, 7).toString('base64');
    const us = emailCodeKey(kek, 'us');
    expect(digestsEqual(emailCodeDigest(us, 'c1', '123456'), emailCodeDigest(us, 'c1', '123456'))).toBe(true);
    expect(digestsEqual(emailCodeDigest(us, 'c1', '123456'), emailCodeDigest(us, 'c2', '123456'))).toBe(false);
    expect(digestsEqual(emailCodeDigest(us, 'c1', '123456'), emailCodeDigest(emailCodeKey(kek, 'eu'), 'c1', '123456'))).toBe(false);
    expect(digestsEqual(emailCodeDigest(us, 'c1', '123456'), '')).toBe(false);
    expect(digestsEqual('ab', 'abcd')).toBe(false);
  });
});

describe('safeReturnTo', () => {
  it.each([
    ['/decisions/dts_x', '/decisions/dts_x'],
    ['/inbox?kind=consent', '/inbox?kind=consent'],
    ['//evil.example/x', '/people/account'],
    ['https://evil.example', '/people/account'],
    ['/\\evil.example', '/people/account'],
    ['/a\nb', '/people/account'],
    [42, '/people/account'],
    [undefined, '/people/account'],
  ])('%j → %j', (value, expected) => expect(safeReturnTo(value)).toBe(expected));
});

describe('the sign-in cookie', () => {
  it('is HttpOnly and SameSite=Lax, Secure with the __Host- prefix over https, and cleared with Max-Age=0', () => {
    expect(sessionCookie(false, 'v', 60)).toBe('svc_person=v; Path=/; HttpOnly; SameSite=Lax; Max-Age=60');
    expect(sessionCookie(true, 'v', 60)).toBe('__Host-svc_person=v; Path=/; HttpOnly; SameSite=Lax; Max-Age=60; Secure');
    expect(sessionCookie(true, null, 60)).toBe('__Host-svc_person=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Secure');
  });
});

describe('home countries', () => {
  it("are the residency table's countries plus PERSON_COUNTRIES, each mapped to its region", () => {
    const platform = Object.assign(new PlatformConfig(), { REGION_COUNTRIES: 'us=US,eu=DE,ap=SG' });
    expect([...personCountries(platform, {}).entries()]).toEqual([
      ['US', 'us'],
      ['DE', 'eu'],
      ['SG', 'ap'],
    ]);
    expect(personCountries(platform, { PERSON_COUNTRIES: 'FR=eu,JP=ap' }).get('FR')).toBe('eu');
  });
});

describe('people strings', () => {
  it("follow the person's language, English by default, with placeholders filled", () => {
    expect(peopleLocale('fr-CA')).toBe('fr');
    expect(peopleLocale('it-IT,fr;q=0.8')).toBe('fr');
    expect(peopleLocale('it-IT')).toBe('en');
    expect(['de-DE', 'es-MX', 'pt-BR', 'ja-JP'].map((tag) => peopleLocale(tag))).toEqual(['de', 'es', 'pt', 'ja']);
    expect(peopleText('de', 'signed_in_as', { name: 'Ada' })).toBe('Angemeldet als Ada');
    expect(peopleText('fr', 'code_invalid', { n: 2 })).toBe('Ce code n’est pas le bon. Essais restants : 2.');
    expect(peopleText('en', 'signed_in_as', { name: 'Ada' })).toBe('Signed in as Ada');
  });

  it('have every key in each of the six languages, placeholders kept', () => {
    const english = peopleCatalogue('en');
    for (const locale of PEOPLE_LOCALES) {
      const catalogue = peopleCatalogue(locale);
      expect(Object.keys(catalogue).sort()).toEqual(Object.keys(english).sort());
      for (const key of Object.keys(english) as Array<keyof typeof english>) {
        expect(catalogue[key].match(/\{\w+\}/g)?.sort()).toEqual(english[key].match(/\{\w+\}/g)?.sort());
      }
    }
  });
});
