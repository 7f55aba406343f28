import { DomainError } from '@svc/errors';
import type { ResolvedCredential } from './principal';

/** The fields every credential answer of decision-gateway carries, whichever method answered. */
export interface CredentialReplyFields {
  applicationId: string;
  credentialId: string;
  scopes: readonly string[];
  environment: string;
  region: string;
  mode: string;
}

/** A credential of `kind` from an answer's common fields (an unknown environment reads as development). */
export function credentialOfReply(kind: ResolvedCredential['kind'], reply: CredentialReplyFields): ResolvedCredential {
  return {
    kind,
    applicationId: reply.applicationId,
    credentialId: reply.credentialId,
    scopes: [...reply.scopes],
    environment: reply.environment === 'production' ? 'production' : 'development',
    region: reply.region,
    mode: reply.mode,
  };
}

/** The owner could not give an answer (as opposed to answering "unknown" or refusing). */
export function ownerUnavailable(error: unknown): boolean {
  return !(error instanceof DomainError) || error.kind === 'unavailable' || error.kind === 'internal';
}
