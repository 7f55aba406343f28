import { validateSync } from 'class-validator';
import { AllowedOrigins } from './allowed-origins';
import { brandPalette, contrastRatio, inkOnWhite, textOn } from './brand-colours';
import { formatInstant } from './dates';
import { acceptedLanguages, dictionary, negotiateLocale, resolveLocale, SUPPORTED_LOCALES, textDirection } from './i18n';
import { contentSecurityPolicy, imageOrigin } from './page-security';
import { brandStyles } from './page-styles';
import { POSTMESSAGE_SCHEMAS, payloadSchemaName } from './postmessage-schemas';
import { escapeHtml } from './render-page';
import { PostMessageSchemaResponse } from './hosted.responses';

describe('hosted pages: pure pieces', () => {
  const allowed = ['https://app.example.com', 'http://localhost:3000'];

  it.each([
    ['https://app.example.com', 'https://app.example.com'],
    ['https://app.example.com/', 'https://app.example.com'],
    ['http://localhost:3000', 'http://localhost:3000'],
    ['https://app.example.com/path', null],
    ['https://app.example.com:444', null],
    ['https://evil.example', null],
    ['not a url', null],
    [['https://app.example.com'], null],
    [undefined, null],
  ])('matches origin %p against the allowed origins → %p', (candidate, expected) => {
    expect(AllowedOrigins.match(candidate, allowed)).toBe(expected);
  });

  it.each([
    ['https://app.example.com/back', 'https://app.example.com/back'],
    ['https://app.example.com/back?x=1', null],
    ['https://app.example.com/back#x', null],
    ['https://app.example.com/back?', null],
    ['https://user:pw@app.example.com/back', null],
    ['javascript:alert(1)', null],
    ['https://evil.example/back', null],
  ])('checks redirect_uri %p → %p', (candidate, expected) => {
    expect(AllowedOrigins.redirectUri(candidate, allowed)).toBe(expected);
  });

  it('resolves a locale to its catalogue (fr-CA → fr), English for a language without one', () => {
    expect(resolveLocale('fr-CA')).toBe('fr');
    expect(resolveLocale('de-DE')).toBe('de');
    expect(resolveLocale('pt_BR')).toBe('pt');
    expect(resolveLocale('nl')).toBe('en');
    expect(resolveLocale(undefined)).toBe('en');
    expect(dictionary('fr').agree).toBe("J'accepte");
    expect(dictionary('ja').accept_all).toBe('すべて同意する');
    expect(dictionary('nl').agree).toBe('I agree');
  });

  it('has complete catalogues for en, fr, de, es, pt and ja, each keeping the English placeholders', () => {
    expect(SUPPORTED_LOCALES).toEqual(expect.arrayContaining(['en', 'fr', 'de', 'es', 'pt', 'ja']));
    const en = dictionary('en');
    const placeholders = (text: string) => (text.match(/\{\w+\}/g) ?? []).sort();
    for (const locale of SUPPORTED_LOCALES) {
      const catalogue = dictionary(locale);
      expect(Object.keys(catalogue).sort()).toEqual(Object.keys(en).sort());
      for (const [key, text] of Object.entries(catalogue)) {
        expect([locale, key, text.trim().length > 0]).toEqual([locale, key, true]);
        expect([locale, key, placeholders(text)]).toEqual([locale, key, placeholders(en[key as keyof typeof en])]);
      }
    }
  });

  it.each([
    ['ja,en;q=0.5', 'en-GB', 'ja'],
    ['de-CH, fr;q=0.9', 'en', 'de'],
    ['nl-NL, es;q=0.8, fr;q=0.9', 'en', 'fr'],
    ['fr;q=0, es;q=0.1', 'de-DE', 'es'],
    ['nl, sv', 'fr-FR', 'fr'],
    ['nl, sv', 'nl', 'en'],
    ['*', 'pt-BR', 'pt'],
    ['', 'ja-JP', 'ja'],
    [undefined, undefined, 'en'],
    ['en;q=garbage, <script>, ja', 'fr', 'ja'],
  ])('negotiates Accept-Language %p against the catalogues, then the flow locale %p, then en → %p', (header, flow, expected) => {
    expect(negotiateLocale(header, flow)).toBe(expected);
  });

  it('reads Accept-Language by quality then order, ignoring q=0 and bounding what it reads', () => {
    expect(acceptedLanguages('fr;q=0.5, de, ja;q=0.5, es;q=0')).toEqual(['de', 'fr', 'ja']);
    expect(acceptedLanguages(`${'xx,'.repeat(5000)}ja`)).not.toContain('ja');
    expect(textDirection('ja')).toBe('ltr');
    expect(textDirection('ar-EG')).toBe('rtl');
  });

  it('writes dates in the page language, in UTC with the zone named, never as an ISO stamp', () => {
    expect(formatInstant('2026-11-22T10:00:00.000Z', 'en')).toBe('November 22, 2026 at 10:00 AM UTC');
    expect(formatInstant('2026-11-22T10:00:00.000Z', 'de')).toBe('22. November 2026 um 10:00 UTC');
    expect(formatInstant('2026-11-22T10:00:00.000Z', 'ja')).toBe('2026年11月22日 10:00 UTC');
    expect(formatInstant('not a date', 'en')).toBe('not a date');
  });

  it('picks black or white text on any brand colour at ≥ 4.5:1 (so no colour has to be refused)', () => {
    let worst = 21;
    for (let r = 0; r < 256; r += 5) {
      for (let g = 0; g < 256; g += 5) {
        for (let b = 0; b < 256; b += 5) {
          const hex = `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
          worst = Math.min(worst, contrastRatio(hex, textOn(hex)));
        }
      }
    }
    expect(worst).toBeGreaterThanOrEqual(4.5);
    expect(textOn('#ffd400')).toBe('#000000');
    expect(textOn('#0b57d0')).toBe('#ffffff');
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
  });

  it('darkens a light brand colour just enough to read on white', () => {
    expect(inkOnWhite('#0b57d0')).toBe('#0b57d0');
    const ink = inkOnWhite('#ffd400');
    expect(contrastRatio(ink, '#ffffff')).toBeGreaterThanOrEqual(4.5);
    expect(brandStyles(brandPalette('#ffd400'))).toBe(`:root{--brand:#ffd400;--on-brand:#000000;--brand-ink:${ink}}`);
    expect(brandStyles(brandPalette(null))).toContain('--brand:#0b57d0');
  });

  it('adds the logo origin to img-src only, and only an https origin', () => {
    const csp = contentSecurityPolicy('abc', [], { imageOrigins: ['https://cdn.acme.example'] });
    expect(csp).toContain("img-src 'self' data: https://cdn.acme.example;");
    expect(csp).toContain("default-src 'none'");
    expect(csp.split('; ').filter((d) => d.includes('cdn.acme.example'))).toHaveLength(1);
    expect(
      contentSecurityPolicy('abc', [], {
        imageOrigins: ['http://cdn.acme.example', 'https://*.acme.example', "https://x.example 'unsafe-inline'"],
      }),
    ).toContain("img-src 'self' data:;");
    expect(imageOrigin('https://cdn.acme.example:8443/logo.svg?v=1')).toBe('https://cdn.acme.example:8443');
    expect(imageOrigin('http://cdn.acme.example/logo.svg')).toBeNull();
    expect(imageOrigin('javascript:alert(1)')).toBeNull();
    expect(imageOrigin(null)).toBeNull();
  });

  it('escapes the five HTML-significant characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('builds a CSP with the nonce, no unsafe-inline, and frame-ancestors from the allowed origins or none', () => {
    expect(contentSecurityPolicy('abc', allowed)).toContain(`frame-ancestors ${allowed.join(' ')}`);
    expect(contentSecurityPolicy('abc', [])).toContain("frame-ancestors 'none'");
    expect(contentSecurityPolicy('abc', [])).toContain("script-src 'nonce-abc'");
    expect(contentSecurityPolicy('abc', [])).not.toContain('unsafe');
  });

  it('has a Draft 2020-12 schema for the envelope and every payload a message can carry', () => {
    for (const type of ['svc:ready', 'svc:state', 'svc:complete', 'svc:cancel', 'svc:error', 'svc:resize', 'svc:deadline'] as const) {
      for (const kind of ['consent', 'approval'] as const) {
        const schema = POSTMESSAGE_SCHEMAS[payloadSchemaName(type, kind)];
        expect(schema?.['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
      }
    }
    expect(Object.keys(POSTMESSAGE_SCHEMAS)).toHaveLength(12);
  });
});

describe('the documented body of a postMessage schema', () => {
  it.each(Object.keys(POSTMESSAGE_SCHEMAS))('describes %s.json as served', (name) => {
    const served = JSON.parse(JSON.stringify(POSTMESSAGE_SCHEMAS[name])) as Record<string, unknown>;
    expect(validateSync(Object.assign(new PostMessageSchemaResponse(), served))).toEqual([]);
  });
});
