import { createHash } from 'node:crypto';
import { refusedTargetOf, resolveAllWithDns, type EgressEnvironment, type ResolveAll } from '@svc/egress';
import { isIdOf, newRegionalId, randomBase62, type IdRegion } from '@svc/ids';
import { consentRecordsError } from '../consent-records.errors';
import type { MailingAudienceResponse } from './mailing-audience.response';

/** Mailing tools an audience can live in (closed list). */
export const MAILING_PROVIDERS = ['mailchimp'] as const;
export type MailingProvider = (typeof MAILING_PROVIDERS)[number];

/** A purpose of the flow written to one marketing permission of the tool's member. */
export interface PermissionMapping {
  purpose: string;
  marketing_permission_id: string;
}

/** Tags made active on the member while the purpose stands granted, or while it is declined or withdrawn. */
export interface PurposeTags {
  purpose: string;
  granted: string[];
  declined: string[];
}

/** One application's audience in a mailing tool, bound to one flow. The API key is only ever held encrypted. */
export interface MailingAudience {
  id: string;
  applicationId: string;
  environment: 'development' | 'production';
  provider: MailingProvider;
  apiBaseUrl: string;
  apiKeyEnc: Buffer;
  listId: string;
  flowId: string;
  permissions: PermissionMapping[];
  tags: PurposeTags[];
  webhookSecretDigest: string;
  createdAt: Date;
}

/** Longest accepted API base URL, characters. */
export const MAX_API_BASE_URL_LENGTH = 2048;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `mla_<region>_<base32>`: the integration's id. */
export function newMailingAudienceId(region: IdRegion): string {
  return newRegionalId('mailing_audience', region);
}

export function isMailingAudienceId(value: string): boolean {
  return isIdOf('mailing_audience', value);
}

/** The path of the inbound webhook, relative to the public base URL. */
export const MAILING_WEBHOOK_PATH = 'api/v1/mailing_audience_webhooks';

/** Prefix of the inbound webhook path secret, so it is recognisable in a secret scanner. */
export const WEBHOOK_PATH_SECRET_PREFIX = 'mlwh_';

/** A fresh inbound path secret (~256 bits): the tool's webhooks are unsigned, so the URL is the credential. */
export function newWebhookPathSecret(): string {
  return `${WEBHOOK_PATH_SECRET_PREFIX}${randomBase62(43)}`;
}

/** Only the digest of the path secret is stored; a lookup by digest never needs the secret back. */
export function webhookSecretDigest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Mailchimp's member id: MD5 of the lower-cased email address. */
export function subscriberHash(email: string): string {
  return createHash('md5').update(email.trim().toLowerCase(), 'utf8').digest('hex');
}

/**
 * The tool's API base URL: HTTPS (the API key travels in every request); development applications
 * may also use plain HTTP on a loopback host, for a local stand-in of the tool. No credentials,
 * query or fragment; a trailing slash is dropped.
 */
export function checkApiBaseUrl(raw: string, environment: 'development' | 'production'): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw consentRecordsError('mailing_api_base_url_invalid', 'api_base_url must be an absolute https URL', { field: 'api_base_url' });
  }
  if (
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    !url.hostname ||
    url.username ||
    url.password ||
    url.search ||
    raw.includes('#')
  ) {
    throw consentRecordsError(
      'mailing_api_base_url_invalid',
      'api_base_url must be an absolute https URL without credentials, query or fragment',
      { field: 'api_base_url' },
    );
  }
  if (url.protocol === 'http:' && !(environment === 'development' && LOOPBACK_HOSTS.has(url.hostname))) {
    throw consentRecordsError(
      'mailing_api_base_url_invalid',
      environment === 'production'
        ? 'Production applications reach the mailing tool over HTTPS only'
        : 'api_base_url must use https (http only for localhost or 127.0.0.1)',
      { field: 'api_base_url' },
    );
  }
  return url.toString().replace(/\/+$/, '');
}

/**
 * Refuses an API base URL (already checked by checkApiBaseUrl) whose host is, or resolves to, an
 * address the environment may not reach: the API key would be sent there, and the service would
 * call into its own network. Every call checks again before it connects.
 */
export async function checkApiBaseUrlTarget(
  url: string,
  environment: EgressEnvironment,
  resolveAll: ResolveAll = resolveAllWithDns,
): Promise<void> {
  const refused = await refusedTargetOf(new URL(url).hostname, environment, resolveAll);
  if (refused) {
    throw consentRecordsError('mailing_api_base_url_address_refused', 'api_base_url must point to a public address', {
      field: 'api_base_url',
      range: refused.range,
    });
  }
}

/** What the API shows of an integration: never the API key, never the webhook secret. */
export function mailingAudienceView(audience: MailingAudience): Record<string, unknown> {
  return {
    id: audience.id,
    object: 'mailing_audience',
    application_id: audience.applicationId,
    provider: audience.provider,
    api_base_url: audience.apiBaseUrl,
    list_id: audience.listId,
    flow_id: audience.flowId,
    permissions: audience.permissions,
    tags: audience.tags,
    created_at: audience.createdAt.toISOString(),
  } satisfies MailingAudienceResponse;
}
