import { gatewayError } from '../gateway.errors';
import type { Environment } from './application';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1']);

/**
 * Validates an allowed origin (spec, Authentication rule 3) and returns its canonical form:
 * scheme + host + optional port, nothing else; HTTPS in production; development also accepts
 * http://localhost and http://127.0.0.1 on any port.
 */
export function canonicalOrigin(input: string, environment: Environment): string {
  const field = 'allowed_origin.origin';
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw gatewayError('allowed_origin_invalid', `${field} must be an origin such as https://app.example.com`, { field });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw gatewayError('allowed_origin_invalid', `${field} must use https (or http for local development)`, { field });
  }
  if (url.username || url.password) {
    throw gatewayError('allowed_origin_invalid', `${field} must not contain credentials`, { field });
  }
  const withoutScheme = input.slice(input.indexOf('//') + 2);
  if (/[/?#]/.test(withoutScheme)) {
    throw gatewayError('allowed_origin_invalid', `${field} must be an origin only: no path, query, fragment or trailing slash`, { field });
  }
  if (url.protocol === 'http:') {
    const local = LOCAL_HOSTS.has(url.hostname);
    if (environment === 'production' || !local) {
      throw gatewayError(
        'allowed_origin_requires_https',
        environment === 'production'
          ? `${field} must use https for a production application`
          : `${field} must use https unless it is http://localhost or http://127.0.0.1`,
        { field, environment },
      );
    }
  }
  return url.origin;
}
