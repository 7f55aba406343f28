import { Module } from '@nestjs/common';
import { OutboxRegistry } from '@svc/server';
import { GATEWAY_SCHEMA } from '../schema';
import { GATEWAY_OUTBOX } from '../tokens';
import { PeopleModule } from '../people/people.module';
import { CollaborationsController } from './collaborations.controller';
import { CollaborationsRepository } from './collaborations.repository';
import { CollaborationsService } from './collaborations.service';

/** Agree: collaborations, their parties, invitations, attached agreements and history. */
@Module({
  imports: [PeopleModule],
  controllers: [CollaborationsController],
  providers: [
    { provide: GATEWAY_OUTBOX, useFactory: (registry: OutboxRegistry) => registry.writer(GATEWAY_SCHEMA), inject: [OutboxRegistry] },
    CollaborationsRepository,
    CollaborationsService,
  ],
})
export class CollaborationsModule {}
