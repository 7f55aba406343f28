import type { SchemaMigrations } from '@svc/persistence';
import { RECEIPTS_SCHEMA } from '../../schema';
import { CreateReceipts1795500000000 } from './1795500000000-create-receipts';
import { CreateReceiptIntake1795600000000 } from './1795600000000-create-receipt-intake';
import { Credentials1805000000000 } from './1805000000000-credentials';
import { ApprovalReceipts1808100000000 } from './1808100000000-approval-receipts';
import { RandomStatusPositions1811000000000 } from './1811000000000-random-status-positions';
import { SubjectPseudonymKeys1812000000001 } from './1812000000001-subject-pseudonym-keys';

/** receipts' schema and its migrations, in order. */
export const receiptsMigrations: SchemaMigrations = {
  schema: RECEIPTS_SCHEMA,
  migrations: [
    CreateReceipts1795500000000,
    CreateReceiptIntake1795600000000,
    Credentials1805000000000,
    ApprovalReceipts1808100000000,
    RandomStatusPositions1811000000000,
    SubjectPseudonymKeys1812000000001,
  ],
};
