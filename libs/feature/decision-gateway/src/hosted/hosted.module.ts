import { Module } from '@nestjs/common';
import { OutboxRegistry } from '@svc/server';
import { ApplicationsRepository } from '../applications/applications.repository';
import { DecisionsModule } from '../decisions/decisions.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { PeopleModule } from '../people/people.module';
import { ReadDecisionSession } from '../decisions/use-cases/read-decision-session.use-case';
import { GATEWAY_SCHEMA } from '../schema';
import { GATEWAY_OUTBOX } from '../tokens';
import { ActivityController } from './activity.controller';
import { AllowedOrigins } from './allowed-origins';
import { BrowserCors } from './browser-cors';
import { FlowActivations } from './flow-activations.consumer';
import { FlowPresentations } from './flow-presentation';
import { HostedAssetsController } from './hosted-assets.controller';
import { HostedPagesController } from './hosted-pages.controller';
import { HostedRepository } from './hosted.repository';
import { PostMessageDrops } from './postmessage-drops';

/**
 * The browser surface of decision-gateway: hosted decision pages (full, embed, /accord), the
 * postMessage v2 schemas, the SDK bundle, CORS for browser calls and the activity log.
 */
@Module({
  imports: [DecisionsModule, PeopleModule, NotificationsModule],
  controllers: [HostedPagesController, HostedAssetsController, ActivityController, FlowActivations],
  providers: [
    { provide: GATEWAY_OUTBOX, useFactory: (registry: OutboxRegistry) => registry.writer(GATEWAY_SCHEMA), inject: [OutboxRegistry] },
    ApplicationsRepository,
    ReadDecisionSession,
    AllowedOrigins,
    FlowPresentations,
    HostedRepository,
    PostMessageDrops,
    BrowserCors,
  ],
})
export class HostedModule {}
