import { Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { isIdOf } from '@svc/ids';
import {
  ApiDoc,
  ApiResponseOf,
  DEFAULT_PAGE_SIZE,
  claimStreamedBody,
  STREAMED_BODY_ROUTE,
  StreamedRequestBody,
  decodeCursor,
  toPage,
  type StreamedBody,
} from '@svc/server';
import { ConsentImportDryRunResponse, ConsentImportResponse } from './import.response';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IDEMPOTENT_REPLAYED_HEADER } from '@svc/persistence';
import { consentRecordsError } from '../consent-records.errors';
import { importRowView, importView } from './import.response';
import { CreateImportBody, ImportQuery, ImportRowsQuery } from './imports.dto';
import { ImportsRepository } from './imports.repository';
import { CreateImport } from './use-cases/create-import.use-case';

const IMPORT_RESPONSE =
  'consent_import: id, object, application_id, flow_id, dry_run, status (queued|running|completed), counts {total, processed, pending, created, duplicates, failed}, created_at, started_at, completed_at, rows {data [{index, outcome (created|duplicate|failed|null while pending), record_id, reason_code, detail}], has_more, next_cursor}';

/**
 * Bulk import of consents collected elsewhere (channel `imported`). API token. Rows keep their
 * `captured_at` and get `recorded_at`; processing happens in the background in batches.
 */
@Controller('api/v1/consent_records/imports')
export class ImportsController {
  constructor(
    private readonly createImport: CreateImport,
    private readonly imports: ImportsRepository,
  ) {}

  /**
   * 202 with the queued import; with `dry_run` 200 with the per-row report and nothing kept. The
   * body is read as it arrives (JSON, or NDJSON with flow_id and dry_run in the query), after the
   * credentials were checked.
   */
  @Post()
  @RouteConfig(STREAMED_BODY_ROUTE)
  @ApiDoc({
    tag: 'Consent records',
    summary: 'Import consent records (dry_run reports what would happen and writes nothing)',
    description:
      'The body is read and stored as it arrives, never held whole: `application/json` as `{flow_id, dry_run, records: [...]}` (members in any order), or `application/x-ndjson` with one row per line and `flow_id` (and `dry_run`) in the query. A body refused anywhere, or an upload that breaks off, leaves nothing behind. Limits of this route: a request body of at most 64 MiB and at most 100,000 rows; beyond either it answers 413 payload_too_large, the message and detail naming the limit (limit_bytes or limit_rows). Other routes keep the 1 MiB body limit.',
    response: IMPORT_RESPONSE,
    errors: [400, 401, 403, 404, 409, 413, 415, 421, 422],
    alsoAnswers: [200],
    body: { json: CreateImportBody, ndjson: 'One import row per line, each shaped like an element of `records` of the JSON body.' },
  })
  @ApiResponseOf(ConsentImportResponse, { status: 202 })
  @ApiResponseOf(ConsentImportDryRunResponse, { status: 200 })
  async create(
    @CurrentPrincipal() principal: Principal,
    @StreamedRequestBody() body: StreamedBody | undefined,
    @Query() query: ImportQuery,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Record<string, unknown> | ConsentImportDryRunResponse | Buffer> {
    let received;
    try {
      received = await this.createImport.execute(principal, body, query, (digest) => claimStreamedBody(request, digest));
    } catch (error) {
      // The rest of a refused body is not read: the connection closes instead of carrying it.
      if (body && !body.stream.readableEnded) void reply.header('connection', 'close');
      throw error;
    }
    if ('replay' in received) {
      void reply.status(received.replay.status).headers({ ...received.replay.headers, [IDEMPOTENT_REPLAYED_HEADER]: 'true' });
      return received.replay.body;
    }
    if (received.dryRun) {
      void reply.status(200);
      return received.report;
    }
    void reply.status(202);
    const { job } = received;
    return { ...importView(job), rows: { data: [], has_more: job.total > 0, next_cursor: null } };
  }

  /** Status, progress counts and a cursor page of per-row outcomes (filter with `outcome`). */
  @Get(':import_id')
  @ApiDoc({ tag: 'Consent records', summary: 'Outcome and progress of an import', response: IMPORT_RESPONSE })
  @ApiResponseOf(ConsentImportResponse)
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('import_id') importId: string,
    @Query() query: ImportRowsQuery,
  ): Promise<Record<string, unknown>> {
    const job = isIdOf('consent_import', importId) ? await this.imports.find(principal.applicationId, importId) : undefined;
    if (!job) throw consentRecordsError('import_not_found', 'Import not found', { import_id: importId });
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? Number(decodeCursor(query.cursor, ['index']).index) : -1;
    const rows = await this.imports.rows(job.id, limit + 1, Number.isInteger(after) ? after : -1, query.outcome);
    return { ...importView(job), rows: toPage(rows, limit, importRowView, (r) => ({ index: r.index })) };
  }
}
