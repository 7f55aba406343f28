import { Module } from '@nestjs/common';
import { OutboxRegistry } from '@svc/server';
import { PeopleModule } from '../people/people.module';
import { GATEWAY_SCHEMA } from '../schema';
import { GATEWAY_OUTBOX } from '../tokens';
import { DataRequestsController } from './data-requests.controller';
import { DataRequestsRepository } from './data-requests.repository';
import { DataRequestsService } from './data-requests.service';
import { PersonDataRepository } from './person-data.repository';
import { DataRequestExports } from './use-cases/data-request-exports';
import { DataRequestFulfilment } from './use-cases/fulfil-data-request.use-case';

/** Protect: data subject requests, their legal clock, fulfilment and exports. */
@Module({
  imports: [PeopleModule],
  controllers: [DataRequestsController],
  providers: [
    { provide: GATEWAY_OUTBOX, useFactory: (registry: OutboxRegistry) => registry.writer(GATEWAY_SCHEMA), inject: [OutboxRegistry] },
    DataRequestsRepository,
    DataRequestsService,
    DataRequestExports,
    DataRequestFulfilment,
    PersonDataRepository,
  ],
})
export class DataRequestsModule {}
