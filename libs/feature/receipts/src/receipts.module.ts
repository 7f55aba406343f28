import { PersonDataRpcHandlers } from './person-data-rpc.handlers';
import { Module } from '@nestjs/common';
import { CredentialIssuer } from './credentials/credential-issuer';
import { CredentialIssuanceController, CredentialsController } from './credentials/credentials.controller';
import { CredentialsRepository } from './credentials/credentials.repository';
import { IssuerDocumentsController } from './credentials/issuer-documents.controller';
import { StatusLists } from './credentials/status-lists';
import { IssuerKeys } from './presentations/issuer-keys';
import { PresentationsController } from './presentations/presentations.controller';
import { VerifyPresentation } from './presentations/verify-presentation';
import { DisclosureReceiptsController } from './http/disclosure-receipts.controller';
import { PublicDocumentsController } from './http/public-documents.controller';
import { ReceiptsController } from './http/receipts.controller';
import { AgentRegistrations } from './intake/agent-registrations.consumer';
import { ApprovalDecisions } from './intake/approval-decisions.consumer';
import { ApprovalEvents } from './intake/approval-events.consumer';
import { AuthorityEvents } from './intake/authority-events.consumer';
import { ConsentRecordEvents } from './intake/consent-record-events.consumer';
import { PrincipalPseudonyms } from './intake/principal-pseudonyms';
import { ReceiptIntake } from './intake/receipt-intake';
import { ReceiptsRpcHandlers } from './receipts-rpc.handlers';
import { ReceiptsRepository } from './storage/receipts.repository';
import { AppendReceiptTransition } from './use-cases/append-receipt-transition.use-case';
import { FreezeReceipt } from './use-cases/freeze-receipt.use-case';
import { RecordDisclosure } from './use-cases/record-disclosure.use-case';
import { RenderReceipt } from './use-cases/render-receipt.use-case';

/**
 * receipts: durable svc-cr/2.13 records and their flavors, disclosure receipts, the published
 * schema, JWKS. Exports {@link FreezeReceipt} and {@link AppendReceiptTransition}: the in-process
 * API through which consent-records and oap-authorizer freeze receipts and append transitions;
 * in a separate process they call the same through `receipts.freeze` / `receipts.append_transition`.
 * The intake consumers (`intake/`) freeze and update receipts from the events consent-records and
 * oap-authorizer publish, so their records get receipts whichever process they run in.
 * The Verify surface's credentials (`credentials/`: did:web, OpenID4VCI issuance of SD-JWT VCs,
 * status lists) and presentation verification (`presentations/`) live here beside the receipts
 * they attest, and withdrawals revoke them in the intake's transaction.
 */
@Module({
  controllers: [
    ReceiptsController,
    DisclosureReceiptsController,
    PublicDocumentsController,
    ReceiptsRpcHandlers,
    PersonDataRpcHandlers,
    IssuerDocumentsController,
    CredentialIssuanceController,
    CredentialsController,
    PresentationsController,
    ConsentRecordEvents,
    AuthorityEvents,
    ApprovalEvents,
    ApprovalDecisions,
    AgentRegistrations,
  ],
  providers: [
    ReceiptsRepository,
    FreezeReceipt,
    AppendReceiptTransition,
    RenderReceipt,
    RecordDisclosure,
    ReceiptIntake,
    PrincipalPseudonyms,
    CredentialsRepository,
    StatusLists,
    CredentialIssuer,
    IssuerKeys,
    VerifyPresentation,
  ],
  exports: [FreezeReceipt, AppendReceiptTransition, RenderReceipt],
})
export class ReceiptsModule {}
