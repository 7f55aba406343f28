import { refusedTargetOf, resolveAllWithDns, type EgressEnvironment, type ResolveAll } from '@svc/egress';
import { oversightError } from '../oversight.errors';

/** How the engine authenticates our calls: none, `Authorization: Bearer <secret>`, or `<header>: <secret>`. */
export const POLICY_ENGINE_CREDENTIAL_TYPES = ['none', 'bearer', 'header'] as const;
export type PolicyEngineCredentialType = (typeof POLICY_ENGINE_CREDENTIAL_TYPES)[number];

/** Default deadline of one engine call, ms. */
export const DEFAULT_POLICY_ENGINE_TIMEOUT_MS = 2_000;
/** Bounds of the configurable deadline, ms: a grant request waits at most this long per action. */
export const MIN_POLICY_ENGINE_TIMEOUT_MS = 100;
export const MAX_POLICY_ENGINE_TIMEOUT_MS = 10_000;

/** Longest engine base URL, characters. */
export const MAX_POLICY_ENGINE_URL_LENGTH = 2048;

/** Headers a `header` credential may not name: they are ours to set, or would smuggle a request. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'accept',
  'x-request-id',
  'cookie',
]);

/**
 * The customer's policy engine of one application (Hybrid mode): an OpenID AuthZEN 1.0 PDP whose
 * Access Evaluation API answers the agent classes routed to `oversight`, and the trusted attester
 * in whose name its answers are witnessed. The credential is held only encrypted.
 */
export interface PolicyEngine {
  applicationId: string;
  /** The PDP base URL; `/access/v1/evaluation` is appended. */
  baseUrl: string;
  attesterId: string;
  credentialType: PolicyEngineCredentialType;
  /** Header carrying the secret when `credentialType` is `header`. */
  credentialHeader: string | null;
  /** AES-256-GCM envelope of the secret, bound to the application id; null for `none`. */
  credentialEnc: Buffer | null;
  timeoutMs: number;
  createdAt: Date;
  updatedAt: Date;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1']);

/**
 * Normalises the engine URL: absolute http(s), no credentials, query or fragment; HTTPS only, except
 * `http://localhost` / `http://127.0.0.1` for development applications (a local engine).
 */
export function checkPolicyEngineUrl(raw: string, environment: EgressEnvironment): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw oversightError('policy_engine_url_invalid', 'url must be an absolute https URL', { field: 'url' });
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname) {
    throw oversightError('policy_engine_url_invalid', 'url must be an absolute https URL', { field: 'url' });
  }
  if (url.username || url.password || url.search || raw.includes('#')) {
    throw oversightError('policy_engine_url_invalid', 'url must not carry credentials, a query or a fragment', { field: 'url' });
  }
  if (url.protocol === 'http:' && !(environment === 'development' && LOOPBACK_HOSTS.has(url.hostname))) {
    throw oversightError('policy_engine_url_invalid', 'url must use https (http only for localhost or 127.0.0.1 in development)', {
      field: 'url',
    });
  }
  return url.toString().replace(/\/$/, '');
}

/** Refuses an engine host that is, or resolves to, an address the environment may not reach. */
export async function checkPolicyEngineTarget(
  url: string,
  environment: EgressEnvironment,
  resolveAll: ResolveAll = resolveAllWithDns,
): Promise<void> {
  const refused = await refusedTargetOf(new URL(url).hostname, environment, resolveAll);
  if (refused)
    throw oversightError('policy_engine_url_invalid', 'url must point to a public address', { field: 'url', range: refused.range });
}

/** A `header` credential's header name: an RFC 9110 token, not one of the headers the call sets itself. */
export function checkCredentialHeader(name: string): string {
  const lower = name.toLowerCase();
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]{1,64}$/.test(lower) || RESERVED_HEADERS.has(lower)) {
    throw oversightError('policy_engine_credential_invalid', 'credential_header must be a header name other than the ones the call sets', {
      field: 'credential_header',
    });
  }
  return lower;
}

/** The headers that authenticate a call to the engine, from the decrypted secret. */
export function credentialHeaders(
  engine: Pick<PolicyEngine, 'credentialType' | 'credentialHeader'>,
  secret: string | null,
): Record<string, string> {
  switch (engine.credentialType) {
    case 'none':
      return {};
    case 'bearer':
      return { authorization: `Bearer ${secret ?? ''}` };
    case 'header':
      return { [engine.credentialHeader ?? 'authorization']: secret ?? '' };
  }
}
