import { targetRefusalIn } from './target-check';

/**
 * Error text prefix of a call whose target address the environment may not reach (private,
 * loopback, metadata, ...; the range follows the colon). Permanent: retrying the same name would
 * only be another chance for a rebinding answer.
 */
export const REFUSED_TARGET_ERROR = 'target_address_refused';

/** Error codes of undici and node mapped to the short, stable texts logs and APIs show. */
const NETWORK_ERROR_TEXT: Readonly<Record<string, string>> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect_timeout',
  UND_ERR_HEADERS_TIMEOUT: 'read_timeout',
  UND_ERR_BODY_TIMEOUT: 'read_timeout',
  ECONNREFUSED: 'connection_refused',
  ECONNRESET: 'connection_reset',
  ENOTFOUND: 'dns_not_found',
  EAI_AGAIN: 'dns_unavailable',
  UND_ERR_SOCKET: 'connection_closed',
};

/** The short text of an error a call failed with before any status arrived. */
export function networkErrorText(error: unknown): string {
  const refused = targetRefusalIn(error);
  if (refused) return `${REFUSED_TARGET_ERROR}:${refused.range}`;
  const withCode = error as { code?: string; cause?: { code?: string } } | null;
  const code = withCode?.code ?? withCode?.cause?.code ?? '';
  return NETWORK_ERROR_TEXT[code] ?? (code ? `network_error:${code}` : 'network_error');
}

/** Whether an error text is a refused target address (never worth retrying). */
export function isRefusedTargetError(text: string | undefined): boolean {
  return text?.startsWith(`${REFUSED_TARGET_ERROR}:`) ?? false;
}
