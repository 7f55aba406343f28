import type { IncomingMessage } from 'node:http';
import type { RpcClient } from '@svc/bus';
import type { DelegationSubjects } from './delegation-subjects.port';

/** RFC 8693 §3 token type identifiers. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
export const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
/** A delegation grant id (`dlg_…`) as a subject token. */
export const DELEGATION_GRANT_TOKEN_TYPE = 'urn:oap:params:oauth:token-type:delegation_grant';

/** The token exchange path of the spec; the provider's token endpoint serves the same grant. */
export const TOKEN_EXCHANGE_PATH = '/oauth/token/exchange';

/** Parameters of the grant (RFC 8693 §2.1) besides `grant_type`. */
export const TOKEN_EXCHANGE_PARAMETERS = [
  'subject_token',
  'subject_token_type',
  'actor_token',
  'actor_token_type',
  'scope',
  'requested_token_type',
  'audience',
  'resource',
];

/** oidc-provider's error classes the grant answers with. */
export interface ExchangeErrors {
  InvalidGrant: new (detail: string) => Error;
  InvalidRequest: new (detail: string) => Error;
  InvalidScope: new (detail: string, scope: string) => Error;
  InvalidDpopProof: new (detail: string) => Error;
}

/** The part of oidc-provider's context the grant reads and answers through. */
interface ExchangeContext {
  req: IncomingMessage;
  method: string;
  get(name: string): string;
  body: unknown;
  oidc: {
    params: Record<string, string | undefined>;
    client: { clientId: string };
    provider: {
      AccessToken: {
        find(token: string): Promise<{ accountId: string; clientId: string; scope?: string; exp?: number; isExpired: boolean } | undefined>;
      };
    };
  };
}

export interface TokenExchangeDependencies {
  rpc: RpcClient;
  errors: ExchangeErrors;
  publicBaseUrl: string;
  applicationOf(clientId: string): Promise<string | undefined>;
  delegations: DelegationSubjects | null;
  /** The path the request was sent to (before `/oauth/token/exchange` was routed to the token endpoint). */
  pathOf(req: IncomingMessage): string;
}

/**
 * The token exchange grant (RFC 8693) registered with the provider: the client (the application)
 * authenticated at the token endpoint presents the person's access token (or a delegation grant)
 * as subject and its agent's actor token; the subject is verified here and oap-authorizer, asked
 * over `oap.mint_agent_token`, verifies the agent (DPoP proof, actor token) and mints the
 * DPoP-bound `ra_agent_…` token. Unknown, expired or revoked subjects are `invalid_grant`.
 */
export function tokenExchangeGrant(deps: TokenExchangeDependencies): (ctx: ExchangeContext) => Promise<void> {
  const { errors } = deps;
  return async (ctx) => {
    const params = ctx.oidc.params;
    for (const name of ['subject_token', 'subject_token_type', 'actor_token', 'actor_token_type'] as const) {
      if (!params[name]) throw new errors.InvalidRequest(`missing required parameter '${name}'`);
    }
    if (params.actor_token_type !== JWT_TOKEN_TYPE) throw new errors.InvalidRequest(`actor_token_type must be ${JWT_TOKEN_TYPE}`);
    if (params.requested_token_type !== undefined && params.requested_token_type !== ACCESS_TOKEN_TYPE)
      throw new errors.InvalidRequest(`requested_token_type must be ${ACCESS_TOKEN_TYPE}`);
    const proof = ctx.get('DPoP');
    if (!proof) throw new errors.InvalidDpopProof('a DPoP proof of the agent key is required');
    const applicationId = await deps.applicationOf(ctx.oidc.client.clientId);
    if (!applicationId) throw new errors.InvalidGrant('the client belongs to no application');
    const subject = await resolveSubject(ctx, deps, applicationId);
    const reply = await deps.rpc.call('oap.mint_agent_token', {
      applicationId,
      personId: subject.personId,
      subjectKind: subject.kind,
      subjectScope: subject.scopes.join(' '),
      subjectExpiresAt: subject.expiresAt.toISOString(),
      subjectActJson: subject.act ? JSON.stringify(subject.act) : '',
      requestedScope: params.scope ?? '',
      actorToken: params.actor_token ?? '',
      dpopProof: proof,
      dpopMethod: ctx.method,
      dpopUrl: `${deps.publicBaseUrl}${deps.pathOf(ctx.req)}`,
      clientId: ctx.oidc.client.clientId,
    });
    if (reply.error) throw new Error('oap.mint_agent_token failed');
    if (!reply.agentToken) {
      const description = reply.refusalDescription || 'the exchange was refused';
      if (reply.refusal === 'invalid_scope') throw new errors.InvalidScope(description, params.scope ?? '');
      if (reply.refusal === 'invalid_dpop_proof') throw new errors.InvalidDpopProof(description);
      if (reply.refusal === 'invalid_request') throw new errors.InvalidRequest(description);
      throw new errors.InvalidGrant(description);
    }
    ctx.body = {
      access_token: reply.agentToken,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'DPoP',
      expires_in: Number(reply.expiresIn),
      scope: reply.scope,
      // RFC 8693 §4.1: who acts for the subject (the agent, over the subject's own chain).
      act: reply.actJson ? (JSON.parse(reply.actJson) as unknown) : undefined,
    };
  };
}

interface VerifiedSubject {
  kind: 'access_token' | 'delegation_grant';
  personId: string;
  scopes: string[];
  expiresAt: Date;
  act?: { sub: string };
}

async function resolveSubject(ctx: ExchangeContext, deps: TokenExchangeDependencies, applicationId: string): Promise<VerifiedSubject> {
  const { errors } = deps;
  const token = ctx.oidc.params.subject_token ?? '';
  if (ctx.oidc.params.subject_token_type === ACCESS_TOKEN_TYPE) {
    const accessToken = /^[A-Za-z0-9_-]{43}$/.test(token) ? await ctx.oidc.provider.AccessToken.find(token) : undefined;
    if (!accessToken || accessToken.isExpired || accessToken.exp === undefined)
      throw new errors.InvalidGrant('the subject token is unknown, expired or revoked');
    if ((await deps.applicationOf(accessToken.clientId)) !== applicationId)
      throw new errors.InvalidGrant("the subject token was not issued to this application's client");
    return {
      kind: 'access_token',
      personId: accessToken.accountId,
      scopes: (accessToken.scope ?? '').split(' ').filter(Boolean),
      expiresAt: new Date(accessToken.exp * 1000),
    };
  }
  if (ctx.oidc.params.subject_token_type === DELEGATION_GRANT_TOKEN_TYPE) {
    const grant = deps.delegations ? await deps.delegations.resolve(token, applicationId) : null;
    if (!grant) throw new errors.InvalidGrant('the delegation grant is unknown, expired or revoked');
    return {
      kind: 'delegation_grant',
      personId: grant.personId,
      scopes: grant.scopes,
      expiresAt: grant.expiresAt,
      act: { sub: grant.delegateId },
    };
  }
  throw new errors.InvalidRequest(`subject_token_type must be ${ACCESS_TOKEN_TYPE} or ${DELEGATION_GRANT_TOKEN_TYPE}`);
}
