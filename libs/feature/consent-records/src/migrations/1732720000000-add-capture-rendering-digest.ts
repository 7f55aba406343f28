import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rendering evidence of the service-rendered consent field: the SHA-256 (hex) of the field the
 * person was shown, kept on the capture until it is committed into a record. Additive: existing
 * captures have none.
 */
export class AddCaptureRenderingDigest1732720000000 implements MigrationInterface {
  name = 'AddCaptureRenderingDigest1732720000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE consent_records.captures ADD COLUMN rendering_digest text`);
    await runner.query(
      `ALTER TABLE consent_records.captures ADD CONSTRAINT captures_rendering_digest_check CHECK (rendering_digest IS NULL OR rendering_digest ~ '^[0-9a-f]{64}$')`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE consent_records.captures DROP COLUMN rendering_digest`);
  }
}
