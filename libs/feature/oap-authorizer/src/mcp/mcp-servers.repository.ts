import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
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

const COLUMNS = 'id, application_id, environment, name, url, tools_json, created_at';

function recordOf(row: McpServerRow): McpServerRecord {
  return {
    id: row.id,
    applicationId: row.application_id,
    environment: row.environment,
    name: row.name,
    url: row.url,
    tools: row.tools_json,
    createdAt: row.created_at,
  };
}

/** Most upstream servers one application registers. */
export const MAX_MCP_SERVERS = 50;

@Injectable()
export class McpServersRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(server: McpServerRecord): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO oap.mcp_servers (id, application_id, environment, name, url, tools_json, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [server.id, server.applicationId, server.environment, server.name, server.url, JSON.stringify(server.tools), server.createdAt],
    );
  }

  async count(applicationId: string): Promise<number> {
    const rows: Array<{ n: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS n FROM oap.mcp_servers WHERE application_id = $1`,
      [applicationId],
    );
    return rows[0]?.n ?? 0;
  }

  /** One page of the application's servers, oldest first, after the keyset position `after`. */
  async page(applicationId: string, limit: number, after?: { createdAt: string; id: string }): Promise<McpServerRecord[]> {
    const params: unknown[] = [applicationId, limit];
    let where = 'application_id = $1';
    if (after) {
      params.push(after.createdAt, after.id);
      where += ' AND (created_at, id) > ($3::timestamptz, $4::uuid)';
    }
    const rows: McpServerRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM oap.mcp_servers WHERE ${where} ORDER BY created_at, id LIMIT $2`,
      params,
    );
    return rows.map(recordOf);
  }

  /** The application's server with this id, or undefined (another application's is undefined too). */
  async find(applicationId: string, id: string): Promise<McpServerRecord | undefined> {
    const rows: McpServerRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM oap.mcp_servers WHERE application_id = $1 AND id = $2`,
      [applicationId, id],
    );
    return rows[0] ? recordOf(rows[0]) : undefined;
  }

  /** Deletes the application's server; false when it has none with this id. Its tools vanish from the gateway at once. */
  async delete(applicationId: string, id: string): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      this.dataSource,
      `DELETE FROM oap.mcp_servers WHERE application_id = $1 AND id = $2 RETURNING id`,
      [applicationId, id],
    );
    return rows.length > 0;
  }

  /** The application's servers, oldest first. */
  async listFor(applicationId: string): Promise<McpServerRecord[]> {
    const rows: McpServerRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM oap.mcp_servers WHERE application_id = $1 ORDER BY created_at, id LIMIT ${MAX_MCP_SERVERS}`,
      [applicationId],
    );
    return rows.map(recordOf);
  }
}
