import { Module } from '@nestjs/common';
import { OutboxRegistry } from '@svc/server';
import { DecisionsModule } from '../decisions/decisions.module';
import { PeopleModule } from '../people/people.module';
import { GATEWAY_SCHEMA } from '../schema';
import { GATEWAY_OUTBOX } from '../tokens';
import { AgreementSigning } from './agreement-signing.service';
import { AgreementReader, AgreementsController, MultiPartyAgreementsController } from './agreements.controller';
import { AgreementsRepository } from './agreements.repository';
import { AgreementsRpcHandlers } from './agreements-rpc.handlers';
import { CreateAgreement } from './create-agreement.use-case';
import { SignerPasskeys } from './signer-passkeys';
import { ProposeAmendment } from './propose-amendment.use-case';
import { WithdrawAgreement } from './withdraw-agreement.use-case';

/** Agree: multi-party agreements, their signers' signing sessions, quorum and receipts, cross-border signing. */
@Module({
  imports: [DecisionsModule, PeopleModule],
  controllers: [AgreementsController, MultiPartyAgreementsController, AgreementsRpcHandlers],
  providers: [
    { provide: GATEWAY_OUTBOX, useFactory: (registry: OutboxRegistry) => registry.writer(GATEWAY_SCHEMA), inject: [OutboxRegistry] },
    AgreementsRepository,
    AgreementSigning,
    AgreementReader,
    CreateAgreement,
    WithdrawAgreement,
    SignerPasskeys,
    ProposeAmendment,
  ],
})
export class AgreementsModule {}
