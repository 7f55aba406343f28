import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { McpServerRecord, ToolMapping } from './mcp-server';

interface McpServerRow {
  id: string;
  application_id: string;
  environment: McpServerRecord['environment'];
  name: string;
  url: string;
  tools_json: ToolMapping[];
  created_at: Date;
}

/** Most upstream servers one application registers. */
export const MAX_MCP_SERVERS = 50;

@Injectable()
export class McpServersRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(server: McpServerRecord): Promise<void> {
    await this.dataSource.query(`INSERT INTO oap.mcp_servers (id, application_id, environment, name, url, tools_json, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
      server.id,
      server.applicationId,
      server.environment,
      server.name,
      server.url,
      JSON.stringify(server.tools),
      server.createdAt,
    ]);
  }

  async count(applicationId: string): Promise<number> {
    const rows: Array<{ n: number }> = await this.dataSource.query(`SELECT count(*)::int AS n FROM oap.mcp_servers WHERE application_id = $1`, [applicationId]);
    return rows[0]?.n ?? 0;
  }

  /** The application's servers, oldest first. */
  async listFor(applicationId: string): Promise<McpServerRecord[]> {
    const rows: McpServerRow[] = await this.dataSource.query(
      `SELECT id, application_id, environment, name, url, tools_json, created_at FROM oap.mcp_servers WHERE application_id = $1 ORDER BY created_at, id LIMIT ${MAX_MCP_SERVERS}`,
      [applicationId],
    );
    return rows.map((row) => ({ id: row.id, applicationId: row.application_id, environment: row.environment, name: row.name, url: row.url, tools: row.tools_json, createdAt: row.created_at }));
  }
}
