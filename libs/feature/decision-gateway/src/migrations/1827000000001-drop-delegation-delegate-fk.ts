import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delegation grant may name a delegate homed in another region: that person is not in this
 * region's `gateway.people`, so `delegate_person_id` no longer references it (the principal still
 * does). The erasure of a person of this region deletes the grants naming them as delegate itself.
 */
export class DropDelegationDelegateFk1827000000001 implements MigrationInterface {
  name = 'DropDelegationDelegateFk1827000000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE gateway.delegation_grants DROP CONSTRAINT delegation_grants_delegate_person_id_fkey`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      `DELETE FROM gateway.delegation_grants g WHERE NOT EXISTS (SELECT 1 FROM gateway.people p WHERE p.id = g.delegate_person_id)`,
    );
    await runner.query(
      `ALTER TABLE gateway.delegation_grants ADD CONSTRAINT delegation_grants_delegate_person_id_fkey FOREIGN KEY (delegate_person_id) REFERENCES gateway.people (id) ON DELETE CASCADE`,
    );
  }
}
