import { CleanRoomsController } from './clean-rooms/clean-rooms.controller';
import { CleanRoomsRepository } from './clean-rooms/clean-rooms.repository';
import { CleanRooms } from './clean-rooms/clean-rooms.service';
import { Module } from '@nestjs/common';
import { ApplicationFactsReader } from '@svc/bus';
import { OutboxRegistry } from '@svc/server';
import { ApplicationOrigins } from './captures/application-origins';
import { CaptureCors } from './captures/capture-cors';
import { CapturesController } from './captures/captures.controller';
import { CapturesRepository } from './captures/captures.repository';
import { AuthorizeCapture } from './captures/use-cases/authorize-capture.use-case';
import { CreateCapture } from './captures/use-cases/create-capture.use-case';
import { RenderConsentField } from './captures/use-cases/render-consent-field.use-case';
import { SweepExpiredCaptures } from './captures/use-cases/sweep-expired-captures';
import { FlowsController } from './flows/flows.controller';
import { FormIntegrationsController } from './form-integrations/form-integrations.controller';
import { FormIntegrationsRepository } from './form-integrations/form-integrations.repository';
import { FormWebhookController } from './form-integrations/form-webhook.controller';
import { CreateFormIntegration } from './form-integrations/use-cases/create-form-integration.use-case';
import { ReceiveFormResponse } from './form-integrations/use-cases/receive-form-response.use-case';
import { FlowsRepository } from './flows/flows.repository';
import { FlowsRpcHandlers } from './flows/flows-rpc.handlers';
import { PersonDataRepository } from './records/person-data.repository';
import { PersonDataRpcHandlers } from './records/person-data-rpc.handlers';
import { RecordsRpcHandlers } from './records/records-rpc.handlers';
import { ActivateFlow } from './flows/use-cases/activate-flow.use-case';
import { CreateFlow } from './flows/use-cases/create-flow.use-case';
import { UpdateFlow } from './flows/use-cases/update-flow.use-case';
import { ImportsController } from './imports/imports.controller';
import { ImportsRepository } from './imports/imports.repository';
import { CreateImport } from './imports/use-cases/create-import.use-case';
import { DryRunImport } from './imports/use-cases/dry-run-import.use-case';
import { ImportWorker } from './imports/use-cases/import-worker';
import { MailingAudiencesController } from './mailing/mailing-audiences.controller';
import { AudienceFlows } from './mailing/audience-flows';
import { MailingAudiencesRepository } from './mailing/mailing-audiences.repository';
import { MailingSyncWorker } from './mailing/mailing-sync-worker';
import { MailingWebhookController } from './mailing/mailing-webhook.controller';
import { RecordEventsConsumer } from './mailing/record-events.consumer';
import { CreateMailingAudience } from './mailing/use-cases/create-mailing-audience.use-case';
import { ReceiveMailingWebhook } from './mailing/use-cases/receive-mailing-webhook.use-case';
import { BatchRecordWriter } from './records/batch-record-writer';
import { RecordBatcher } from './records/record-batcher';
import { RecordWriter } from './records/record-writer';
import { RecordsController } from './records/records.controller';
import { RecordsRepository } from './records/records.repository';
import { RecordConsent } from './records/use-cases/record-consent.use-case';
import { WithdrawConsent } from './records/use-cases/withdraw-consent.use-case';
import { CONSENT_RECORDS_SCHEMA } from './schema';
import { SandboxResetConsumer } from './sandbox/sandbox-reset.consumer';
import { SessionDecisionsConsumer } from './sessions/session-decisions.consumer';
import { SessionRecordEvidenceRepository } from './sessions/session-record-evidence';
import { ConsentStatusController } from './status/consent-status.controller';
import { CONSENT_RECORDS_OUTBOX } from './tokens';
import { DirectoryController } from './directory/directory.controller';
import { DirectoryPublisher } from './directory/directory-publisher';
import { DirectoryReplica } from './directory/directory-replica';
import { DirectoryRepository } from './directory/directory.repository';
import { DataDeals } from './deals/data-deals.service';
import { DataTransfersController } from './deals/data-transfers.controller';
import { DataTransfersRepository } from './deals/data-transfers.repository';
import { SendDataTransfer } from './deals/send-data-transfer.use-case';
import { DataLicensesController } from './deals/data-licenses.controller';
import { DataOffersController } from './deals/data-offers.controller';
import { DealsRepository } from './deals/deals.repository';
import { PoliciesController } from './policies/policies.controller';
import { PoliciesRepository } from './policies/policies.repository';
import { RetentionSweep } from './policies/retention-sweep';
import { ActivatePolicy } from './policies/use-cases/activate-policy.use-case';
import { CreatePolicy } from './policies/use-cases/create-policy.use-case';
import { UpdatePolicy } from './policies/use-cases/update-policy.use-case';

/** consent-records: flows and their versions, Record API, imports, captures, consent status, withdrawals, the consent token lifecycle. */
@Module({
  controllers: [
    FlowsController,
    CapturesController,
    ImportsController,
    RecordsController,
    ConsentStatusController,
    MailingAudiencesController,
    MailingWebhookController,
    FormIntegrationsController,
    FormWebhookController,
    DirectoryController,
    PoliciesController,
    DataLicensesController,
    DataTransfersController,
    DataOffersController,
    FlowsRpcHandlers,
    RecordsRpcHandlers,
    PersonDataRpcHandlers,
    CleanRoomsController,
    RecordEventsConsumer,
    SessionDecisionsConsumer,
    SandboxResetConsumer,
    DirectoryPublisher,
    DirectoryReplica,
  ],
  providers: [
    {
      provide: CONSENT_RECORDS_OUTBOX,
      useFactory: (registry: OutboxRegistry) => registry.writer(CONSENT_RECORDS_SCHEMA),
      inject: [OutboxRegistry],
    },
    FlowsRepository,
    PersonDataRepository,
    CleanRoomsRepository,
    CleanRooms,
    CreateFlow,
    UpdateFlow,
    ActivateFlow,
    RecordsRepository,
    SessionRecordEvidenceRepository,
    RecordWriter,
    BatchRecordWriter,
    RecordBatcher,
    RecordConsent,
    WithdrawConsent,
    ImportsRepository,
    ImportWorker,
    CreateImport,
    DryRunImport,
    ApplicationOrigins,
    ApplicationFactsReader,
    CaptureCors,
    CapturesRepository,
    CreateCapture,
    AuthorizeCapture,
    RenderConsentField,
    SweepExpiredCaptures,
    FormIntegrationsRepository,
    CreateFormIntegration,
    ReceiveFormResponse,
    MailingAudiencesRepository,
    AudienceFlows,
    CreateMailingAudience,
    ReceiveMailingWebhook,
    MailingSyncWorker,
    DirectoryRepository,
    PoliciesRepository,
    CreatePolicy,
    UpdatePolicy,
    ActivatePolicy,
    RetentionSweep,
    DealsRepository,
    DataDeals,
    DataTransfersRepository,
    SendDataTransfer,
  ],
  exports: [FlowsRepository, RecordConsent, CreateImport, ImportWorker, ImportsRepository, SweepExpiredCaptures, RetentionSweep],
})
export class ConsentRecordsModule {}
