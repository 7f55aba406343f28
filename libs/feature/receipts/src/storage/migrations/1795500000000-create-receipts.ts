import { createOutboxAndInbox, dropOutboxAndInbox } from '@svc/persistence';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `receipts.frozen_receipts`: one frozen `svc-cr/2.13` document per record, stored as its exact
 * RFC 8785 canonical text (never jsonb, which Postgres normalises) with the SHA-256 of those bytes.
 * A trigger refuses UPDATE: a frozen record is never rewritten (spec), whatever code or operator
 * tries. `receipts.receipt_transitions`: the post-decision transitions appended at render time.
 */
export class CreateReceipts1795500000000 implements MigrationInterface {
  name = 'CreateReceipts1795500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE receipts.frozen_receipts (
        record_id text NOT NULL,
        application_id text NOT NULL,
        record_type text NOT NULL,
        document text NOT NULL,
        document_sha256 text NOT NULL,
        source text NOT NULL,
        frozen_at timestamptz NOT NULL,
        CONSTRAINT frozen_receipts_pk PRIMARY KEY (record_id),
        CONSTRAINT frozen_receipts_record_type_check CHECK (record_type IN ('consent_record', 'notice_record', 'authorization_record')),
        CONSTRAINT frozen_receipts_sha256_check CHECK (document_sha256 ~ '^[0-9a-f]{64}$'),
        CONSTRAINT frozen_receipts_source_check CHECK (source IN ('consent-records', 'oap-authorizer', 'disclosure'))
      )`);
    await runner.query(`CREATE INDEX frozen_receipts_application_idx ON receipts.frozen_receipts (application_id, frozen_at, record_id)`);
    await runner.query(`
      CREATE FUNCTION receipts.refuse_receipt_rewrite() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'frozen receipt % is never rewritten', OLD.record_id USING ERRCODE = 'integrity_constraint_violation';
      END $$`);
    await runner.query(`
      CREATE TRIGGER frozen_receipts_no_update BEFORE UPDATE ON receipts.frozen_receipts
      FOR EACH ROW EXECUTE FUNCTION receipts.refuse_receipt_rewrite()`);
    await runner.query(`
      CREATE TABLE receipts.receipt_transitions (
        seq bigserial NOT NULL,
        record_id text NOT NULL,
        transition_type text NOT NULL,
        transition text NOT NULL,
        occurred_at timestamptz NOT NULL,
        idempotency_key text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT receipt_transitions_pk PRIMARY KEY (seq),
        CONSTRAINT receipt_transitions_record_fk FOREIGN KEY (record_id) REFERENCES receipts.frozen_receipts (record_id),
        CONSTRAINT receipt_transitions_idempotency_unique UNIQUE (record_id, idempotency_key)
      )`);
    await runner.query(`CREATE INDEX receipt_transitions_record_idx ON receipts.receipt_transitions (record_id, occurred_at, seq)`);
    await createOutboxAndInbox(runner, 'receipts');
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropOutboxAndInbox(runner, 'receipts');
    await runner.query('DROP TABLE receipts.receipt_transitions');
    await runner.query('DROP TRIGGER frozen_receipts_no_update ON receipts.frozen_receipts');
    await runner.query('DROP FUNCTION receipts.refuse_receipt_rewrite()');
    await runner.query('DROP TABLE receipts.frozen_receipts');
  }
}
