export { ConsentRecordsModule } from './consent-records.module';
export { consentRecordsFeature } from './consent-records.feature';
export { CONSENT_RECORDS_SCHEMA } from './schema';
export { consentRecordsMigrations } from './migrations';
export { consentRecordsError } from './consent-records.errors';
export {
  CONSENT_PATHS,
  FLOW_REQUIREMENTS,
  PURPOSE_MECHANISMS,
  REVOCATION_POLICIES,
  capturableInOwnForm,
  flowView,
  type ConsentPath,
  type FlowPurpose,
  type FlowTerms,
  type FlowVersion,
} from './flows/flow';
export { FlowsRepository } from './flows/flows.repository';
export { CreateFlowBody, UpdateFlowBody } from './flows/flows.dto';
export { ConsentRecordsConfig } from './consent-records.config';
export { SessionDecisionsConsumer } from './sessions/session-decisions.consumer';
export { ImportsRepository } from './imports/imports.repository';
export { IMPORT_BATCH_ROWS } from './imports/use-cases/import-worker';
export { RecordConsent } from './records/use-cases/record-consent.use-case';
export { RecordConsentBody } from './records/records.dto';
export { RetentionSweep, type RetentionSweepReport, type SweptConsent, type ExpiryReason } from './policies/retention-sweep';
