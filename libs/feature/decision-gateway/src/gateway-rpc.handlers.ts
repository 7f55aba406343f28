import { Controller } from '@nestjs/common';
import { AccessTokenResolver, AccountAccessResolver, accessReplyOf, isAccountRole, type AccountActor } from '@svc/auth';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { ApplicationsRepository } from './applications/applications.repository';
import { ComplyService } from './comply/comply.service';
import { TrustPairingsRepository } from './trust-pairings/trust-pairings.repository';

/** Answers other services' synchronous questions about credentials and applications. */
@Controller()
export class GatewayRpcHandlers {
  constructor(
    private readonly applications: ApplicationsRepository,
    private readonly comply: ComplyService,
    private readonly pairings: TrustPairingsRepository,
    private readonly accessTokens: AccessTokenResolver,
    private readonly accountAccess: AccountAccessResolver,
  ) {}

  /** Asked within the region by processes that run no OpenID provider: only this process's own verifier answers. */
  @RpcHandler('gateway.resolve_access_token')
  async resolveAccessToken(request: RpcRequest<'gateway.resolve_access_token'>): Promise<RpcReplyInit<'gateway.resolve_access_token'>> {
    const credential = await this.accessTokens.resolveLocally(request.accessToken);
    return accessReplyOf(credential?.kind === 'access_token' ? credential : null);
  }

  @RpcHandler('gateway.resolve_account_credential')
  async resolveAccountCredential(
    request: RpcRequest<'gateway.resolve_account_credential'>,
  ): Promise<RpcReplyInit<'gateway.resolve_account_credential'>> {
    const local = this.accountAccess.local;
    if (!local || !/^[0-9a-f]{64}$/.test(request.accountTokenSha256Hex)) return { found: false };
    return accessReplyOf(await local.resolveAccountToken(request.accountTokenSha256Hex));
  }

  /** Throws the accounts owner's domain error (404 for an application the actor cannot see, 403 for too weak a role). */
  @RpcHandler('gateway.authorize_account')
  async authorizeAccount(request: RpcRequest<'gateway.authorize_account'>): Promise<RpcReplyInit<'gateway.authorize_account'>> {
    const local = this.accountAccess.local;
    const { actor, applicationId, needed } = request;
    if (!local || !isAccountRole(needed)) return { found: false };
    let accountActor: AccountActor;
    if (actor.case === 'personId' && actor.value) accountActor = { personId: actor.value };
    else if (actor.case === 'accountToken' && isAccountRole(actor.value.role)) {
      accountActor = { accountTokenId: actor.value.accountTokenId, accountId: actor.value.accountId, role: actor.value.role };
    } else return { found: false };
    return accessReplyOf(await local.authorize(accountActor, applicationId, needed));
  }

  @RpcHandler('gateway.resolve_credential')
  async resolveCredential(request: RpcRequest<'gateway.resolve_credential'>): Promise<RpcReplyInit<'gateway.resolve_credential'>> {
    const { credential } = request;
    if (credential.case === 'apiTokenSha256Hex') {
      const owner = await this.applications.findByTokenDigest(credential.value);
      if (!owner) return { found: false };
      const app = owner.application;
      return {
        found: true,
        applicationId: app.id,
        credentialId: owner.credentialId,
        scopes: owner.scopes,
        environment: app.environment,
        region: app.region,
        mode: app.mode,
      };
    }
    if (credential.case === 'publishableKey') {
      const app = await this.applications.findByPublishableKey(credential.value);
      if (!app) return { found: false };
      return {
        found: true,
        applicationId: app.id,
        credentialId: credential.value,
        scopes: [],
        environment: app.environment,
        region: app.region,
        mode: app.mode,
      };
    }
    if (credential.case === 'counterpartyTokenSha256Hex') return this.counterpartyToken(credential.value);
    return { found: false };
  }

  /** The one credential question other regions may ask: a trust pairing's token homed here. */
  @RpcHandler('gateway.resolve_counterparty_token')
  async resolveCounterpartyToken(
    request: RpcRequest<'gateway.resolve_counterparty_token'>,
  ): Promise<RpcReplyInit<'gateway.resolve_counterparty_token'>> {
    return request.credential.case === 'counterpartyTokenSha256Hex' ? this.counterpartyToken(request.credential.value) : { found: false };
  }

  private async counterpartyToken(sha256Hex: string): Promise<RpcReplyInit<'gateway.resolve_credential'>> {
    // Only an active pairing's token: a revoked one's digest is cleared with the revocation.
    const found = await this.pairings.findByTokenDigest(sha256Hex);
    if (!found) return { found: false };
    const { pairing } = found;
    return {
      found: true,
      applicationId: pairing.issuerApplicationId,
      credentialId: pairing.id,
      scopes: pairing.scopes,
      environment: found.environment,
      region: found.region,
      mode: found.mode,
      counterpartyApplicationId: pairing.counterpartyApplicationId,
    };
  }

  @RpcHandler('gateway.get_application')
  async getApplication(request: RpcRequest<'gateway.get_application'>): Promise<RpcReplyInit<'gateway.get_application'>> {
    const app = await this.applications.findApplication(request.applicationId);
    if (!app) return { found: false };
    return {
      found: true,
      applicationId: app.id,
      name: app.name,
      environment: app.environment,
      mode: app.mode,
      capabilitiesPublished: app.capabilitiesPublished,
      allowedOrigins: await this.applications.allOrigins(app.id),
      jurisdiction: await this.comply.jurisdiction(app.id),
    };
  }
}
