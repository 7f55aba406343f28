import { AllowedOrigins } from './allowed-origins';
import { dictionary, resolveLocale } from './i18n';
import { contentSecurityPolicy } from './page-security';
import { POSTMESSAGE_SCHEMAS, payloadSchemaName } from './postmessage-schemas';
import { escapeHtml } from './render-page';

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

  it('resolves the flow locale to a dictionary, falling back to English key by key', () => {
    expect(resolveLocale('fr-CA')).toBe('fr');
    expect(resolveLocale('de-DE')).toBe('en');
    expect(resolveLocale(undefined)).toBe('en');
    expect(dictionary('fr').agree).toBe("J'accepte");
    expect(dictionary('de').agree).toBe('I agree');
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
