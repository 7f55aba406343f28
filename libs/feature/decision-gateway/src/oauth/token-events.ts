import { createHash } from 'node:crypto';
import type { OutboxWriter } from '@svc/persistence';
import type { Logger } from '@svc/telemetry';
import type { DataSource } from 'typeorm';

/** What the provider's token models carry that an audit entry may name (never the token value). */
interface TokenModel {
  readonly jti?: string;
  readonly clientId?: string;
  readonly accountId?: string;
  readonly grantId?: string;
}

/** The part of the provider's request context a `grant.revoked` event is emitted with. */
interface RevocationContext {
  readonly oidc?: { readonly client?: { readonly clientId?: string }; readonly entities?: Record<string, TokenModel | undefined> };
}

interface EventSource {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}

export type OAuthTokenKind = 'access_token' | 'refresh_token' | 'grant';

export interface OAuthTokenChange {
  type: 'oauth.token_issued' | 'oauth.token_revoked';
  clientId: string;
  personId: string;
  tokenKind: OAuthTokenKind;
  grantId: string;
  digestPrefix: string;
}

/** First 16 hex digits of the SHA-256 of a token's identifier: tells tokens apart, reveals nothing of them. */
export function tokenDigestPrefix(jti: string | undefined): string {
  return jti ? createHash('sha256').update(jti).digest('hex').slice(0, 16) : '';
}

/** The audit event of a provider token event (`*.saved`/`*.issued`: issued; `*.destroyed`, `grant.revoked`: revoked). */
export function tokenChangeOf(event: string, model: TokenModel, kind: OAuthTokenKind): OAuthTokenChange {
  return {
    type: event.endsWith('.destroyed') || event === 'grant.revoked' ? 'oauth.token_revoked' : 'oauth.token_issued',
    clientId: model.clientId ?? '',
    personId: model.accountId ?? '',
    tokenKind: kind,
    grantId: model.grantId ?? '',
    digestPrefix: kind === 'grant' ? '' : tokenDigestPrefix(model.jti),
  };
}

/**
 * Writes `oauth.token_issued` and `oauth.token_revoked` through the gateway outbox when the provider
 * saves or issues an access or refresh token, destroys one (revocation), or revokes a whole grant.
 * Each event names the client, the person, the kind, the grant and a digest prefix; never the token.
 */
export function recordTokenEvents(
  provider: EventSource,
  deps: {
    dataSource: DataSource;
    outbox: OutboxWriter;
    logger: Logger;
    now: () => Date;
    applicationOf: (clientId: string) => Promise<string | undefined>;
  },
): void {
  const write = (change: OAuthTokenChange): void => {
    void (async () => {
      const applicationId = change.clientId ? await deps.applicationOf(change.clientId) : undefined;
      const occurredAt = deps.now();
      await deps.dataSource.transaction((manager) =>
        deps.outbox.add(
          manager,
          change.type,
          {
            clientId: change.clientId,
            personId: change.personId,
            tokenKind: change.tokenKind,
            grantId: change.grantId,
            digestPrefix: change.digestPrefix,
          },
          { occurredAt, ...(applicationId ? { applicationId } : {}) },
        ),
      );
    })().catch((error: unknown) => {
      deps.logger.error(
        { err_name: error instanceof Error ? error.name : 'unknown', event_type: change.type },
        'oauth token event not recorded',
      );
    });
  };
  const models: Array<[string, OAuthTokenKind]> = [
    ['access_token', 'access_token'],
    ['refresh_token', 'refresh_token'],
  ];
  for (const [prefix, kind] of models) {
    for (const suffix of ['saved', 'issued', 'destroyed']) {
      const event = `${prefix}.${suffix}`;
      provider.on(event, (model) => write(tokenChangeOf(event, model as TokenModel, kind)));
    }
  }
  provider.on('grant.revoked', (context, grantId) => {
    const ctx = context as RevocationContext;
    const entities = ctx.oidc?.entities ?? {};
    const token = entities.AccessToken ?? entities.RefreshToken ?? entities.AuthorizationCode ?? entities.DeviceCode;
    write(
      tokenChangeOf(
        'grant.revoked',
        {
          clientId: ctx.oidc?.client?.clientId ?? token?.clientId,
          accountId: token?.accountId,
          grantId: typeof grantId === 'string' ? grantId : undefined,
        },
        'grant',
      ),
    );
  });
}
