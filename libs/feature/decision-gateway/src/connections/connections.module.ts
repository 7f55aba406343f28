import { Module } from '@nestjs/common';
import { ApplicationsRepository } from '../applications/applications.repository';
import { DelegationsModule } from '../delegations/delegations.module';
import { PeopleModule } from '../people/people.module';
import { OutboxRegistry } from '@svc/server';
import { GATEWAY_SCHEMA } from '../schema';
import { GATEWAY_OUTBOX } from '../tokens';
import { ConnectionsPageController } from './connections-page.controller';
import { ConnectionsController } from './connections.controller';
import { ConnectionsRepository } from './connections.repository';
import { PersonConnections } from './use-cases/person-connections.use-case';

/** Connect: a signed-in person's connections (API and hosted page). */
@Module({
  imports: [PeopleModule, DelegationsModule],
  controllers: [ConnectionsController, ConnectionsPageController],
  providers: [
    { provide: GATEWAY_OUTBOX, useFactory: (registry: OutboxRegistry) => registry.writer(GATEWAY_SCHEMA), inject: [OutboxRegistry] },
    ApplicationsRepository,
    ConnectionsRepository,
    PersonConnections,
  ],
})
export class ConnectionsModule {}
