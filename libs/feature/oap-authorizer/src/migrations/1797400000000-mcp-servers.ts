import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Upstream MCP servers an application registers behind the MCP gateway, with each tool's OAP mapping. */
export class McpServers1797400000000 implements MigrationInterface {
  name = 'McpServers1797400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE oap.mcp_servers (
        id uuid PRIMARY KEY,
        application_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('development', 'production')),
        name text NOT NULL,
        url text NOT NULL,
        tools_json jsonb NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await runner.query(`CREATE INDEX mcp_servers_application_idx ON oap.mcp_servers (application_id, created_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE oap.mcp_servers`);
  }
}
