import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/** A fresh CSP nonce (128 bits, base64) per response. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/** Extra sources a page may need, each added to one directive only. */
export interface PolicyAdditions {
  /**
   * https origins images may come from besides the page's own (the application's logo). Anything
   * that is not exactly an `https://host[:port]` origin is left out.
   */
  imageOrigins?: readonly string[];
}

/** An https origin fit to stand in a CSP source list (no path, wildcard, quote or separator). */
const HTTPS_ORIGIN = /^https:\/\/(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/** The https origin of an image URL, or null when it is not one (for `imageOrigins`). */
export function imageOrigin(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' && HTTPS_ORIGIN.test(parsed.origin) ? parsed.origin : null;
  } catch {
    return null;
  }
}

/**
 * Content-Security-Policy of a hosted page: no inline code without the nonce, no eval, network
 * only to this origin, no plugins, no <base>. `frameAncestors` is the application's allowed
 * origins for the embed page and `'none'` otherwise; X-Frame-Options is not sent because
 * frame-ancestors supersedes it (and could not express a list). `additions.imageOrigins` widens
 * `img-src` alone, to the named https origins only.
 */
export function contentSecurityPolicy(nonce: string, frameAncestors: readonly string[], additions: PolicyAdditions = {}): string {
  const images = (additions.imageOrigins ?? []).filter((origin) => HTTPS_ORIGIN.test(origin));
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    ["img-src 'self' data:", ...new Set(images)].join(' '),
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${frameAncestors.length ? frameAncestors.join(' ') : "'none'"}`,
  ].join('; ');
}

/**
 * Sends an HTML page with the headers every hosted page carries (no caching: the URL holds a
 * capability). `contentLanguage`, when given, is the page's negotiated language: `Content-Language`
 * names it and `Vary: Accept-Language` says the header chose it.
 */
export function sendHtml(reply: FastifyReply, status: number, html: string, csp: string, contentLanguage?: string): FastifyReply {
  if (contentLanguage) reply.header('content-language', contentLanguage).header('vary', 'Accept-Language');
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', csp)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .send(html);
}
