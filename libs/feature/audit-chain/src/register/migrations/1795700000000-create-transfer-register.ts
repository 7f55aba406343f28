import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The region's transfer register: one row per crossing of personal data, written before it happens. */
export class CreateTransferRegister1795700000000 implements MigrationInterface {
  name = 'CreateTransferRegister1795700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE residency.transfers (
        seq bigserial NOT NULL,
        id text NOT NULL,
        application_id text NOT NULL,
        reference text NOT NULL,
        transfer_case text NOT NULL,
        data_categories text[] NOT NULL,
        from_country text NOT NULL,
        to_country text NOT NULL,
        recipient text NOT NULL,
        purpose text NOT NULL,
        lawful_basis text NOT NULL,
        derogation_article text,
        adequacy_verdict text NOT NULL,
        adequacy_decision text,
        adequacy_table_version text NOT NULL,
        record_ids text[] NOT NULL DEFAULT '{}',
        audit_entry_id text NOT NULL,
        recorded_at timestamptz NOT NULL,
        CONSTRAINT transfers_pk PRIMARY KEY (seq),
        CONSTRAINT transfers_id_unique UNIQUE (id),
        CONSTRAINT transfers_reference_unique UNIQUE (application_id, reference)
      )`);
    await runner.query(`CREATE INDEX transfers_application_idx ON residency.transfers (application_id, seq)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE residency.transfers`);
  }
}
