import type { SchemaMigrations } from '@svc/persistence';
import { CONSENT_RECORDS_SCHEMA } from '../schema';
import { CreateFlows1732400000000 } from './1732400000000-create-flows';
import { CreateRecords1732500000000 } from './1732500000000-create-records';
import { AddCaptureRenderingDigest1732720000000 } from './1732720000000-add-capture-rendering-digest';
import { CreateFormIntegrations1732760000000 } from './1732760000000-create-form-integrations';
import { CreateMailingAudiences1732800000000 } from './1732800000000-create-mailing-audiences';
import { CreateSessionRecordEvidence1732900000000 } from './1732900000000-create-session-record-evidence';
import { CreateDirectoryEntries1733000000000 } from './1733000000000-create-directory-entries';
import { AddWithdrawalActedBy1803000000001 } from './1803000000001-add-withdrawal-acted-by';
import { CreateDataPolicies1806000000000 } from './1806000000000-create-data-policies';
import { CreateDataDeals1806000000001 } from './1806000000001-create-data-deals';
import { CreateCleanRooms1804000000000 } from './1804000000000-create-clean-rooms';
import { CreateProcessingRestrictions1812000000002 } from './1812000000002-create-processing-restrictions';
import { CreateDataTransfers1813000000000 } from './1813000000000-create-data-transfers';
import { AddImportReceiving1814000000000 } from './1814000000000-add-import-receiving';

/** consent-records' schema and its migrations, in order. */
export const consentRecordsMigrations: SchemaMigrations = {
  schema: CONSENT_RECORDS_SCHEMA,
  migrations: [
    CreateFlows1732400000000,
    CreateRecords1732500000000,
    AddCaptureRenderingDigest1732720000000,
    CreateFormIntegrations1732760000000,
    CreateMailingAudiences1732800000000,
    CreateSessionRecordEvidence1732900000000,
    CreateDirectoryEntries1733000000000,
    AddWithdrawalActedBy1803000000001,
    CreateDataPolicies1806000000000,
    CreateDataDeals1806000000001,
    CreateCleanRooms1804000000000,
    CreateProcessingRestrictions1812000000002,
    CreateDataTransfers1813000000000,
    AddImportReceiving1814000000000,
  ],
};
