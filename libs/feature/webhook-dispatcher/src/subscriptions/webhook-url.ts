import { refusedTargetOf, type ResolveAll, resolveAllWithDns } from '@svc/egress';
import { webhookError } from '../webhooks.errors';

/** Longest accepted endpoint URL, characters. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1']);

/**
 * Normalises and checks a subscription's endpoint URL. Production applications deliver only over
 * HTTPS (a signed payload over plain HTTP still leaks its content); development applications may
 * also use `http://localhost` or `http://127.0.0.1` for local receivers. Credentials in the URL are
 * refused (they would be stored and shown back), and so is a fragment (never sent over HTTP).
 */
export function checkWebhookUrl(raw: string, environment: 'development' | 'production'): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw webhookError('webhook_url_invalid', 'url must be an absolute http(s) URL', { field: 'url' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw webhookError('webhook_url_invalid', 'url must be an absolute http(s) URL', { field: 'url' });
  }
  if (url.username || url.password || raw.includes('#') || !url.hostname) {
    throw webhookError('webhook_url_invalid', 'url must not carry credentials or a fragment', { field: 'url' });
  }
  if (url.protocol === 'http:' && !(environment === 'development' && LOOPBACK_HOSTS.has(url.hostname))) {
    throw webhookError(
      'webhook_url_requires_https',
      environment === 'production'
        ? 'Production applications deliver webhooks over HTTPS only'
        : 'url must use https (http only for localhost or 127.0.0.1)',
      { field: 'url' },
    );
  }
  return url.toString();
}

/**
 * Refuses an endpoint whose host is, or resolves to, an address the environment may not reach
 * (private, loopback outside development, link-local and metadata, unique-local, multicast, CGNAT,
 * unspecified, other special-purpose ranges). `url` is a URL already normalised by
 * checkWebhookUrl, so octal, hexadecimal and integer forms of an IPv4 host are already dotted.
 */
export async function checkWebhookTarget(
  url: string,
  environment: 'development' | 'production',
  resolveAll: ResolveAll = resolveAllWithDns,
): Promise<void> {
  const refused = await refusedTargetOf(new URL(url).hostname, environment, resolveAll);
  if (refused) {
    throw webhookError('webhook_url_address_refused', 'url must point to a public address', { field: 'url', range: refused.range });
  }
}
