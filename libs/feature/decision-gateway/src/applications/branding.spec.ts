import { isDomainError } from '@svc/errors';
import { parseBrandColor, parseLogoUrl } from './branding';

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return isDomainError(error) ? [error.code, error.detail?.['field']] : error;
  }
  return 'accepted';
}

describe('application branding', () => {
  it.each([
    ['https://cdn.acme.example/logo.svg', 'https://cdn.acme.example/logo.svg'],
    ['https://CDN.acme.example:8443/a b'.replace(' ', '%20'), 'https://cdn.acme.example:8443/a%20b'],
    [null, null],
  ])('keeps an https logo URL %p as %p', (input, expected) => {
    expect(parseLogoUrl(input)).toBe(expected);
  });

  it.each([
    'http://cdn.acme.example/logo.svg',
    'data:image/png;base64,AAAA',
    'javascript:alert(1)',
    '//cdn.acme.example/logo.svg',
    'https://u:p@cdn.acme.example/l.png',
    'https://cdn.acme.example/"onerror="x',
    `https://a.example/${'x'.repeat(2050)}`,
  ])('refuses the logo URL %p (422 naming logo_url)', (input) => {
    expect(refusal(() => parseLogoUrl(input))).toEqual(['validation_failed', 'logo_url']);
  });

  it('normalises a hex brand colour to #rrggbb lower case and refuses anything else by name', () => {
    expect(parseBrandColor('#0B57D0')).toBe('#0b57d0');
    expect(parseBrandColor('#FD0')).toBe('#ffdd00');
    expect(parseBrandColor(null)).toBeNull();
    for (const bad of ['0b57d0', '#0b57d', '#0b57d0ff', 'blue', 'rgb(0,0,0)', '#ggg']) {
      expect([bad, refusal(() => parseBrandColor(bad))]).toEqual([bad, ['validation_failed', 'brand_color']]);
    }
  });
});
