import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The RFC 7638 thumbprint of an agent identity's DPoP key, when the application registers one. */
export class AgentDpopKey1797400000000 implements MigrationInterface {
  name = 'AgentDpopKey1797400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE oap.agents ADD COLUMN dpop_jkt text CHECK (dpop_jkt IS NULL OR dpop_jkt ~ '^[A-Za-z0-9_-]{43}$')`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE oap.agents DROP COLUMN dpop_jkt`);
  }
}
