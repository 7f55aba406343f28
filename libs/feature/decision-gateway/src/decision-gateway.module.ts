import { Module } from '@nestjs/common';
import { OutboxRegistry } from '@svc/server';
import { AccountAccessHost } from './accounts/account-access';
import { AccountApplicationsController } from './accounts/account-applications.controller';
import { AccountsController } from './accounts/accounts.controller';
import { AccountsRepository } from './accounts/accounts.repository';
import { CreateAccountApplication } from './accounts/use-cases/create-account-application.use-case';
import { ChangeAccount, CreateAccount } from './accounts/use-cases/create-account.use-case';
import { ManageAccountTokens } from './accounts/use-cases/manage-account-tokens.use-case';
import { ManageMembers } from './accounts/use-cases/manage-members.use-case';
import { ApplicationsController } from './applications/applications.controller';
import { ManagePublishableKeys } from './applications/use-cases/manage-publishable-keys.use-case';
import { ResetSandbox } from './applications/use-cases/reset-sandbox.use-case';
import { ApplicationsRepository } from './applications/applications.repository';
import { AddAllowedOrigin } from './applications/use-cases/add-allowed-origin.use-case';
import { CreateApplication } from './applications/use-cases/create-application.use-case';
import { IssueApiToken, RevokeApiToken } from './applications/use-cases/manage-api-tokens.use-case';
import { UpdateApplication } from './applications/use-cases/update-application.use-case';
import { ComplyRepository } from './comply/comply.repository';
import { ComplyRpcHandlers } from './comply/comply-rpc.handlers';
import { ComplyService } from './comply/comply.service';
import { GovernanceController } from './comply/governance.controller';
import { ModulesController } from './comply/modules.controller';
import { DiscoveryController } from './discovery/discovery.controller';
import { AgreementsModule } from './agreements/agreements.module';
import { CollaborationsModule } from './collaborations/collaborations.module';
import { DataRequestsModule } from './data-requests/data-requests.module';
import { TrustPairingsModule } from './trust-pairings/trust-pairings.module';
import { ConnectionsModule } from './connections/connections.module';
import { DecisionsModule } from './decisions/decisions.module';
import { DelegationsModule } from './delegations/delegations.module';
import { GatewayRpcHandlers } from './gateway-rpc.handlers';
import { HostedModule } from './hosted/hosted.module';
import { MeController } from './me.controller';
import { PeopleModule } from './people/people.module';
import { SupportModule } from './support/support.module';
import { DecisionGatewayConfig } from './decision-gateway.config';
import { OAuthConfig } from './oauth/oauth.config';
import { OAuthClientsController } from './oauth/oauth-clients.controller';
import { OAuthClientsRepository } from './oauth/oauth-clients.repository';
import { OidcProviderHost } from './oauth/oidc-provider.host';
import { RegisterOAuthClient } from './oauth/register-oauth-client.use-case';
import { GATEWAY_SCHEMA } from './schema';
import { GATEWAY_OUTBOX } from './tokens';

/** decision-gateway: applications, credentials, allowed origins, /api/v1/me, the OpenID provider and its clients. */
@Module({
  imports: [
    DecisionsModule,
    HostedModule,
    PeopleModule,
    DelegationsModule,
    AgreementsModule,
    CollaborationsModule,
    DataRequestsModule,
    TrustPairingsModule,
    ConnectionsModule,
    SupportModule,
  ],
  controllers: [
    AccountsController,
    AccountApplicationsController,
    ApplicationsController,
    MeController,
    DiscoveryController,
    OAuthClientsController,
    GatewayRpcHandlers,
    ModulesController,
    GovernanceController,
    ComplyRpcHandlers,
  ],
  providers: [
    { provide: GATEWAY_OUTBOX, useFactory: (registry: OutboxRegistry) => registry.writer(GATEWAY_SCHEMA), inject: [OutboxRegistry] },
    ApplicationsRepository,
    ComplyRepository,
    ComplyService,
    CreateApplication,
    UpdateApplication,
    AddAllowedOrigin,
    IssueApiToken,
    RevokeApiToken,
    ManagePublishableKeys,
    ResetSandbox,
    AccountsRepository,
    AccountAccessHost,
    CreateAccount,
    ChangeAccount,
    ManageMembers,
    ManageAccountTokens,
    CreateAccountApplication,
    { provide: OAuthConfig, useExisting: DecisionGatewayConfig },
    OAuthClientsRepository,
    RegisterOAuthClient,
    OidcProviderHost,
  ],
  exports: [
    CreateApplication,
    ApplicationsRepository,
    PeopleModule,
    DelegationsModule,
    RegisterOAuthClient,
    OAuthClientsRepository,
    OidcProviderHost,
  ],
})
export class DecisionGatewayModule {}
