import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Device links: a person's phone linked from the inbox page by a one-time link code, holding the
 * phone's Web Push subscription. The code is stored only as its SHA-256. The push queue holds the
 * pushes owed to a person's devices until the push worker sends them.
 */
export class CreateDeviceLinks1815000000000 implements MigrationInterface {
  name = 'CreateDeviceLinks1815000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE gateway.device_links (
        id text PRIMARY KEY,
        person_id text NOT NULL REFERENCES gateway.people (id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('pending', 'active', 'revoked')),
        code_sha256 text UNIQUE,
        code_expires_at timestamptz NOT NULL,
        device_name text,
        push_endpoint text,
        push_p256dh text,
        push_auth text,
        created_at timestamptz NOT NULL,
        linked_at timestamptz,
        revoked_at timestamptz,
        last_push_at timestamptz,
        last_push_status integer
      )`);
    await runner.query(`CREATE INDEX device_links_person_idx ON gateway.device_links (person_id, created_at, id)`);
    // Pushes owed to people's devices, written in the transaction that opened what they announce.
    await runner.query(`
      CREATE TABLE gateway.device_push_queue (
        id bigserial PRIMARY KEY,
        person_id text NOT NULL,
        type text NOT NULL,
        reference text NOT NULL,
        created_at timestamptz NOT NULL
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE gateway.device_push_queue`);
    await runner.query(`DROP TABLE gateway.device_links`);
  }
}
