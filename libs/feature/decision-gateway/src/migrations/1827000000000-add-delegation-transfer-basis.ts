import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delegation grant naming a delegate homed in another region keeps the lawful basis of the
 * crossing its offer recorded (and the register entry it wrote): each act of the delegate that
 * moves the principal's data to them is recorded under the same basis. Null for a delegate of the
 * principal's own region (nothing crosses).
 */
export class AddDelegationTransferBasis1827000000000 implements MigrationInterface {
  name = 'AddDelegationTransferBasis1827000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE gateway.delegation_grants
        ADD COLUMN transfer_lawful_basis text,
        ADD COLUMN transfer_derogation_article text,
        ADD COLUMN transfer_id text`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE gateway.delegation_grants DROP COLUMN transfer_id, DROP COLUMN transfer_derogation_article, DROP COLUMN transfer_lawful_basis`,
    );
  }
}
