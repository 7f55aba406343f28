import { DomainError } from '@svc/errors';

/** Longest logo URL accepted (characters). */
export const LOGO_URL_MAX_LENGTH = 2048;

function invalid(field: string, message: string): DomainError {
  return new DomainError('unprocessable', 'validation_failed', message, { field });
}

/**
 * An application's logo URL as stored: an absolute `https:` URL with a host, no user name or
 * password, at most 2048 characters. Only https: the hosted pages' CSP then allows images from
 * that one origin (`img-src`), and a page served over https never loads mixed content.
 * `null` clears the logo.
 */
export function parseLogoUrl(value: string | null): string | null {
  if (value === null) return null;
  if (value.length > LOGO_URL_MAX_LENGTH) throw invalid('logo_url', `logo_url must be at most ${LOGO_URL_MAX_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid('logo_url', 'logo_url must be an absolute https URL');
  }
  if (url.protocol !== 'https:' || !url.hostname) throw invalid('logo_url', 'logo_url must be an absolute https URL');
  if (url.username || url.password) throw invalid('logo_url', 'logo_url must not carry a user name or password');
  if (/[\s"'<>\\]/.test(value)) throw invalid('logo_url', 'logo_url must not contain spaces, quotes or angle brackets');
  return url.href;
}

/**
 * An application's brand colour as stored: `#rrggbb`, lower case (`#rgb` is expanded). Any
 * colour is accepted: the pages compute the text drawn on it (black or white, whichever
 * contrasts more), and every sRGB colour reaches at least 4.58:1 against one of the two, above
 * WCAG AA's 4.5:1 (see the hosted pages README). `null` clears the colour.
 */
export function parseBrandColor(value: string | null): string | null {
  if (value === null) return null;
  const short = /^#([0-9a-fA-F])([0-9a-fA-F])([0-9a-fA-F])$/.exec(value);
  if (short) return `#${short[1]}${short[1]}${short[2]}${short[2]}${short[3]}${short[3]}`.toLowerCase();
  if (!/^#[0-9a-fA-F]{6}$/.test(value)) throw invalid('brand_color', 'brand_color must be a hex colour such as #0b57d0');
  return value.toLowerCase();
}
