import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Branding of an application's hosted pages: a logo (absolute https URL) and a brand colour
 * (`#rrggbb`). Both optional; existing applications keep the neutral look.
 */
export class AddApplicationBranding1732710000000 implements MigrationInterface {
  name = 'AddApplicationBranding1732710000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE gateway.applications ADD COLUMN logo_url text, ADD COLUMN brand_color text`);
    await runner.query(`
      ALTER TABLE gateway.applications ADD CONSTRAINT applications_logo_url_check
        CHECK (logo_url IS NULL OR (logo_url LIKE 'https://%' AND length(logo_url) <= 2048))`);
    await runner.query(`
      ALTER TABLE gateway.applications ADD CONSTRAINT applications_brand_color_check
        CHECK (brand_color IS NULL OR brand_color ~ '^#[0-9a-f]{6}$')`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE gateway.applications DROP CONSTRAINT applications_brand_color_check, DROP CONSTRAINT applications_logo_url_check`,
    );
    await runner.query(`ALTER TABLE gateway.applications DROP COLUMN brand_color, DROP COLUMN logo_url`);
  }
}
