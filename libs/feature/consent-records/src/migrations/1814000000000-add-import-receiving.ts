import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Streamed imports: a job is `receiving` while its request body is still arriving and its rows are
 * stored chunk by chunk, each chunk renewing `lease_until`. The worker never claims such a job,
 * and one whose upload stopped (its lease ran out) is removed with its rows.
 */
export class AddImportReceiving1814000000000 implements MigrationInterface {
  name = 'AddImportReceiving1814000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE consent_records.imports DROP CONSTRAINT imports_status_check`);
    await runner.query(
      `ALTER TABLE consent_records.imports ADD CONSTRAINT imports_status_check CHECK (status IN ('receiving', 'queued', 'running', 'completed'))`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      `DELETE FROM consent_records.import_rows r USING consent_records.imports i WHERE r.import_id = i.id AND i.status = 'receiving'`,
    );
    await runner.query(`DELETE FROM consent_records.imports WHERE status = 'receiving'`);
    await runner.query(`ALTER TABLE consent_records.imports DROP CONSTRAINT imports_status_check`);
    await runner.query(
      `ALTER TABLE consent_records.imports ADD CONSTRAINT imports_status_check CHECK (status IN ('queued', 'running', 'completed'))`,
    );
  }
}
