import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { commonError, validationError } from '@svc/errors';
import { newRegionalId, type IdRegion } from '@svc/ids';
import { HomeRegionPipe, LOGGER, strictValidationPipe, type StreamedBody, type StreamedBodyClaim } from '@svc/server';
import type { StoredAnswer } from '@svc/persistence';
import type { Logger } from '@svc/telemetry';
import type { FlowVersion } from '../../flows/flow';
import { FlowsRepository } from '../../flows/flows.repository';
import { activeCapturableFlow } from '../../records/active-flow';
import type { ConsentImport } from '../import';
import type { ConsentImportDryRunResponse } from '../import.response';
import { importRowsOf, IMPORT_READ_CHUNK, type ImportBodyFields } from '../import-body';
import { ImportFields, MAX_IMPORT_ROWS, type ImportQuery } from '../imports.dto';
import { ImportsRepository } from '../imports.repository';
import { DryRunImport } from './dry-run-import.use-case';
import { ImportWorker } from './import-worker';

/** A receiving job whose upload sent nothing for this long (the process died mid-upload) is removed, in ms. */
export const IMPORT_RECEIVE_LEASE_MS = 10 * 60_000;

/** An import as received: queued for the worker, a dry run's report (nothing kept), or the stored answer of a repeated request. */
export type ReceivedImport =
  { dryRun: false; job: ConsentImport } | { dryRun: true; report: ConsentImportDryRunResponse } | { replay: StoredAnswer };

/** Claims the request's Idempotency-Key with the SHA-256 of its body, once the body is read. */
export type ClaimAfterBody = (bodySha256: string) => Promise<StreamedBodyClaim>;

/**
 * Receives an import as its body arrives: rows are checked at the edge and stored chunk by chunk
 * under a `receiving` job (each chunk its own short statement, so no connection is held while the
 * client sends), the flow is checked as soon as its id has arrived, and only a body read to its
 * end and valid as a whole queues the job for the worker. Anything refused, or an upload that
 * breaks off, removes the job and its rows: nothing of it is ever processed. A dry run reads its
 * stored rows back for the report, then removes them too.
 */
@Injectable()
export class CreateImport {
  private readonly validation = strictValidationPipe();
  private readonly homeRegion: HomeRegionPipe;

  constructor(
    private readonly flows: FlowsRepository,
    private readonly imports: ImportsRepository,
    private readonly worker: ImportWorker,
    private readonly dryRun: DryRunImport,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.homeRegion = new HomeRegionPipe(config);
  }

  async execute(principal: Principal, body: StreamedBody | undefined, query: ImportQuery, claim: ClaimAfterBody): Promise<ReceivedImport> {
    if (!body) throw commonError('malformed_json', 'Request body is empty; send the rows as application/json or application/x-ndjson');
    const fields = this.fieldsOf(body, query);
    const id = newRegionalId('consent_import', this.config.REGION as IdRegion);
    const digest = createHash('sha256');
    let opened = false;
    let stored = 0;
    let counted = 0;
    let flow: FlowVersion | undefined;
    try {
      for await (const rows of importRowsOf(body, fields, digest)) {
        // Past the limit the rest is only counted (the body limit bounds it), so the answer names the number of rows.
        counted += rows.length;
        if (counted > MAX_IMPORT_ROWS) continue;
        flow ??= fields.flow_id === undefined ? undefined : await this.flowOf(principal, fields);
        this.homeRegion.transform({ records: rows }, { type: 'body', metatype: Object });
        const leaseUntil = new Date(this.clock.now().getTime() + IMPORT_RECEIVE_LEASE_MS);
        if (!opened) await this.imports.insertReceiving({ id, applicationId: principal.applicationId }, this.clock.now(), leaseUntil);
        opened = true;
        await this.imports.storeReceivedRows(id, stored, rows, leaseUntil);
        stored += rows.length;
      }
      if (counted > MAX_IMPORT_ROWS) throw tooManyRows(counted);
      // Claimed as soon as the body is read, before its members are judged, as the platform claims
      // before a parsed body's validation: another body under the key is 422 whatever it holds.
      const claimed = await claim(digest.digest('hex'));
      if (claimed.replay) {
        await this.imports.dropReceiving(id);
        return { replay: claimed.replay };
      }
      const received = await claimed.run(async () => {
        const checkedFlow = flow ?? (await this.flowOf(principal, fields));
        await this.validFields(fields);
        if (stored === 0)
          throw validationError([{ field: 'records', constraint: 'arrayMinSize', message: 'records must contain at least 1 elements' }]);
        return this.settle(principal, id, checkedFlow, stored, fields.dry_run === true);
      });
      if (received.dryRun) return received;
    } catch (error) {
      if (opened)
        await this.imports
          .dropReceiving(id)
          .catch((dropError: unknown) =>
            this.logger.warn({ err: dropError, import_id: id }, 'removing a refused import failed; its lease removes it'),
          );
      throw error;
    }
    this.worker.wake();
    return { dryRun: false, job: (await this.imports.find(principal.applicationId, id))! };
  }

  /** A dry run's report (its rows removed), or the job queued for the worker (in a transaction, which marks an Idempotency-Key claim applied). */
  private async settle(
    principal: Principal,
    id: string,
    flow: FlowVersion,
    stored: number,
    dryRun: boolean,
  ): Promise<{ dryRun: true; report: ConsentImportDryRunResponse } | { dryRun: false }> {
    if (dryRun) {
      const report = await this.dryRun.execute(principal, flow, this.storedChunks(id));
      await this.imports.dropReceiving(id);
      return { dryRun: true, report };
    }
    const queued = await this.imports.transaction((manager) => this.imports.queueReceived(id, flow.flowId, stored, manager));
    if (!queued) throw commonError('service_unavailable', 'The import was not completed in time; send it again');
    return { dryRun: false };
  }

  /** The members that are not rows: from the query with NDJSON, from the body (filled while reading) with JSON. */
  private fieldsOf(body: StreamedBody, query: ImportQuery): ImportBodyFields {
    if (body.mediaType === 'application/x-ndjson') {
      if (query.flow_id === undefined)
        throw validationError([{ field: 'flow_id', constraint: 'isDefined', message: 'flow_id should not be null or undefined' }]);
      return { flow_id: query.flow_id, ...(query.dry_run === undefined ? {} : { dry_run: query.dry_run === 'true' }) };
    }
    const inQuery = Object.keys(query).filter((key) => query[key as keyof ImportQuery] !== undefined);
    if (inQuery.length > 0)
      throw validationError(
        inQuery.map((field) => ({
          field,
          constraint: 'whitelistValidation',
          message: `${field} belongs in the JSON body; the query names it only for an application/x-ndjson body`,
        })),
      );
    return {};
  }

  /** The flow the rows are recorded against, checked once its id has arrived (the id's own rules first). */
  private async flowOf(principal: Principal, fields: ImportBodyFields): Promise<FlowVersion> {
    const { flow_id: flowId, dry_run: dryRun } = fields;
    await this.validFields({ flow_id: flowId, ...(dryRun === undefined ? {} : { dry_run: dryRun }) });
    return activeCapturableFlow(this.flows, principal.applicationId, flowId as string);
  }

  /** flow_id and dry_run by the rules of every body (421 for another region's flow), unknown members refused. */
  private async validFields(fields: ImportBodyFields): Promise<void> {
    this.homeRegion.transform(fields, { type: 'body', metatype: ImportFields });
    await this.validation.transform({ ...fields }, { type: 'body', metatype: ImportFields });
  }

  private async *storedChunks(id: string): AsyncGenerator<unknown[]> {
    for (let after = -1; ;) {
      const rows = await this.imports.pendingRows(id, after, IMPORT_READ_CHUNK);
      if (rows.length === 0) return;
      yield rows.map((row) => row.input);
      after = rows.at(-1)!.index;
    }
  }
}

function tooManyRows(rows: number): Error {
  return commonError(
    'payload_too_large',
    `An import may hold at most ${MAX_IMPORT_ROWS.toLocaleString('en-US')} rows; this one has ${rows.toLocaleString('en-US')}; split it into several imports`,
    { field: 'records', limit_rows: MAX_IMPORT_ROWS, rows },
  );
}
