import type { RpcReply, RpcReplyInit } from '@svc/bus';
import { credentialOfReply } from './credential-reply';
import { ACCOUNT_ROLES, type AccountRole, type ResolvedCredential } from './principal';

type AccessReply = RpcReply<'gateway.resolve_access_token'>;

/** A resolved credential as `gateway.resolve_access_token` and the account methods answer it. */
export function accessReplyOf(credential: ResolvedCredential | null): RpcReplyInit<'gateway.resolve_access_token'> {
  if (!credential) return { found: false };
  return {
    found: true,
    kind: credential.kind,
    applicationId: credential.applicationId,
    credentialId: credential.credentialId,
    scopes: [...credential.scopes],
    environment: credential.environment,
    region: credential.region,
    mode: credential.mode,
    personId: credential.personId ?? '',
    authorizationDetailsJson: credential.authorizationDetails ? JSON.stringify(credential.authorizationDetails) : '',
    accountId: credential.account?.id ?? '',
    accountRole: credential.account?.role ?? '',
  };
}

/** The credential a reply names, or null when not found or unreadable. */
export function credentialOfAccessReply(reply: AccessReply): ResolvedCredential | null {
  if (!reply.found || (reply.kind !== 'access_token' && reply.kind !== 'account_token')) return null;
  const credential = credentialOfReply(reply.kind, reply);
  if (reply.personId) credential.personId = reply.personId;
  if (reply.authorizationDetailsJson) {
    let details: unknown;
    try {
      details = JSON.parse(reply.authorizationDetailsJson);
    } catch {
      return null;
    }
    if (!Array.isArray(details) || !details.every((detail) => typeof detail === 'object' && detail !== null && !Array.isArray(detail)))
      return null;
    credential.authorizationDetails = details as Array<Record<string, unknown>>;
  }
  if (reply.accountId) {
    if (!isAccountRole(reply.accountRole)) return null;
    credential.account = { id: reply.accountId, role: reply.accountRole };
  }
  return credential;
}

export function isAccountRole(value: string): value is AccountRole {
  return (ACCOUNT_ROLES as readonly string[]).includes(value);
}
