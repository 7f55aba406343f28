import { Module } from '@nestjs/common';
import { OutboxRegistry } from '@svc/server';
import { ApplicationsController } from './applications/applications.controller';
import { ApplicationsRepository } from './applications/applications.repository';
import { AddAllowedOrigin } from './applications/use-cases/add-allowed-origin.use-case';
import { CreateApplication } from './applications/use-cases/create-application.use-case';
import { IssueApiToken, RevokeApiToken } from './applications/use-cases/manage-api-tokens.use-case';
import { UpdateApplication } from './applications/use-cases/update-application.use-case';
import { DiscoveryController } from './discovery/discovery.controller';
import { DecisionsModule } from './decisions/decisions.module';
import { GatewayRpcHandlers } from './gateway-rpc.handlers';
import { HostedModule } from './hosted/hosted.module';
import { MeController } from './me.controller';
import { PeopleModule } from './people/people.module';
import { GATEWAY_SCHEMA } from './schema';
import { GATEWAY_OUTBOX } from './tokens';

/** decision-gateway: applications, credentials, allowed origins, /api/v1/me. */
@Module({
  imports: [DecisionsModule, HostedModule, PeopleModule],
  controllers: [ApplicationsController, MeController, DiscoveryController, GatewayRpcHandlers],
  providers: [
    { provide: GATEWAY_OUTBOX, useFactory: (registry: OutboxRegistry) => registry.writer(GATEWAY_SCHEMA), inject: [OutboxRegistry] },
    ApplicationsRepository,
    CreateApplication,
    UpdateApplication,
    AddAllowedOrigin,
    IssueApiToken,
    RevokeApiToken,
  ],
  exports: [CreateApplication, ApplicationsRepository, PeopleModule],
})
export class DecisionGatewayModule {}
