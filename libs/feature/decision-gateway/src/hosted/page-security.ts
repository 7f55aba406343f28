import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/** A fresh CSP nonce (128 bits, base64) per response. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * Content-Security-Policy of a hosted page: no inline code without the nonce, no eval, network
 * only to this origin, no plugins, no <base>. `frameAncestors` is the application's allowed
 * origins for the embed page and `'none'` otherwise; X-Frame-Options is not sent because
 * frame-ancestors supersedes it (and could not express a list).
 */
export function contentSecurityPolicy(nonce: string, frameAncestors: readonly string[]): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${frameAncestors.length ? frameAncestors.join(' ') : "'none'"}`,
  ].join('; ');
}

/** Sends an HTML page with the headers every hosted page carries (no caching: the URL holds a capability). */
export function sendHtml(reply: FastifyReply, status: number, html: string, csp: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', csp)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .send(html);
}
