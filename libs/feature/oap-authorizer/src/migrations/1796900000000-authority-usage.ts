import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-authority running usage (grant count, granted actions, amounts per currency), kept by the
 * statement that inserts grants, so a batch reads it with the authority lock instead of scanning
 * every grant the authority ever had. Grants get `seq`, their insertion order (arrival order
 * inside a batch, whose grants share `created_at`). Amounts are `numeric` (exact), never float.
 */
export class AuthorityUsage1796900000000 implements MigrationInterface {
  name = 'AuthorityUsage1796900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE SEQUENCE oap.grants_seq AS bigint`);
    await runner.query(`ALTER TABLE oap.grants ADD COLUMN seq bigint`);
    await runner.query(`
      UPDATE oap.grants g SET seq = ordered.n
      FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM oap.grants) ordered
      WHERE ordered.id = g.id`);
    await runner.query(`SELECT setval('oap.grants_seq', COALESCE((SELECT max(seq) FROM oap.grants), 0) + 1, false)`);
    await runner.query(`ALTER TABLE oap.grants ALTER COLUMN seq SET DEFAULT nextval('oap.grants_seq'), ALTER COLUMN seq SET NOT NULL`);
    await runner.query(`ALTER SEQUENCE oap.grants_seq OWNED BY oap.grants.seq`);
    await runner.query(`CREATE INDEX grants_authority_seq_idx ON oap.grants (authority_id, seq)`);
    await runner.query(`
      CREATE TABLE oap.authority_usage (
        authority_id text PRIMARY KEY,
        total_grants bigint NOT NULL,
        granted_actions text[] NOT NULL
      )`);
    await runner.query(`
      CREATE TABLE oap.authority_usage_amounts (
        authority_id text NOT NULL,
        currency text NOT NULL,
        amount numeric NOT NULL,
        PRIMARY KEY (authority_id, currency)
      )`);
    await runner.query(`
      INSERT INTO oap.authority_usage (authority_id, total_grants, granted_actions)
      SELECT counted.authority_id, counted.n, COALESCE(actions.granted, '{}')
      FROM (SELECT authority_id, count(*) AS n FROM oap.grants GROUP BY authority_id) counted
      LEFT JOIN (
        SELECT g.authority_id, array_agg(DISTINCT action ORDER BY action) AS granted
        FROM oap.grants g CROSS JOIN LATERAL unnest(g.actions) AS action
        GROUP BY g.authority_id
      ) actions ON actions.authority_id = counted.authority_id`);
    await runner.query(`
      INSERT INTO oap.authority_usage_amounts (authority_id, currency, amount)
      SELECT authority_id, currency, sum(amount) FROM oap.grants
      WHERE amount IS NOT NULL AND currency IS NOT NULL
      GROUP BY authority_id, currency`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE oap.authority_usage_amounts`);
    await runner.query(`DROP TABLE oap.authority_usage`);
    await runner.query(`DROP INDEX oap.grants_authority_seq_idx`);
    await runner.query(`ALTER TABLE oap.grants DROP COLUMN seq`);
  }
}
