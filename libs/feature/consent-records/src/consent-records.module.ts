import { Module } from '@nestjs/common';
import { OutboxRegistry } from '@svc/server';
import { FlowsController } from './flows/flows.controller';
import { FlowsRepository } from './flows/flows.repository';
import { FlowsRpcHandlers } from './flows/flows-rpc.handlers';
import { ActivateFlow } from './flows/use-cases/activate-flow.use-case';
import { CreateFlow } from './flows/use-cases/create-flow.use-case';
import { UpdateFlow } from './flows/use-cases/update-flow.use-case';
import { CONSENT_RECORDS_SCHEMA } from './schema';
import { CONSENT_RECORDS_OUTBOX } from './tokens';

/** consent-records: flows and their versions, Record API, imports, captures, consent status, withdrawals, the consent token lifecycle. */
@Module({
  controllers: [FlowsController],
  providers: [
    { provide: CONSENT_RECORDS_OUTBOX, useFactory: (registry: OutboxRegistry) => registry.writer(CONSENT_RECORDS_SCHEMA), inject: [OutboxRegistry] },
    FlowsRepository,
    CreateFlow,
    UpdateFlow,
    ActivateFlow,
    FlowsRpcHandlers,
  ],
  exports: [FlowsRepository],
})
export class ConsentRecordsModule {}
