import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { newRegionalId, type IdRegion } from '@svc/ids';
import { FlowsRepository } from '../../flows/flows.repository';
import { activeCapturableFlow } from '../../records/active-flow';
import type { ConsentImport } from '../import';
import { ImportsRepository } from '../imports.repository';
import { ImportWorker } from './import-worker';

/** Rows stored per INSERT while an import is being created. */
export const IMPORT_INSERT_CHUNK = 1_000;

/**
 * Creates an import job: checks the flow (the whole import is refused if it cannot be recorded
 * against), stores the rows in chunks and wakes the worker. `rows` may be an async source of
 * chunks, so a caller never needs all rows in memory at once.
 */
@Injectable()
export class CreateImport {
  constructor(
    private readonly flows: FlowsRepository,
    private readonly imports: ImportsRepository,
    private readonly worker: ImportWorker,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  async execute(
    principal: Principal,
    flowId: string,
    rows: readonly unknown[] | AsyncIterable<readonly unknown[]>,
    total: number,
  ): Promise<ConsentImport> {
    await activeCapturableFlow(this.flows, principal.applicationId, flowId);
    const id = newRegionalId('consent_import', this.config.REGION as IdRegion);
    await this.imports.transaction(async (manager) => {
      await this.imports.insertJob(manager, { id, applicationId: principal.applicationId, flowId, total }, this.clock.now());
      let offset = 0;
      for await (const chunk of chunksOf(rows)) {
        await this.imports.insertRows(manager, id, offset, chunk);
        offset += chunk.length;
      }
      if (offset !== total) throw new Error(`import ${id}: ${offset} rows supplied, ${total} announced`);
    });
    this.worker.wake();
    return (await this.imports.find(principal.applicationId, id))!;
  }
}

async function* chunksOf(rows: readonly unknown[] | AsyncIterable<readonly unknown[]>): AsyncIterable<readonly unknown[]> {
  if (Symbol.asyncIterator in rows) {
    yield* rows as AsyncIterable<readonly unknown[]>;
    return;
  }
  const list = rows as readonly unknown[];
  for (let i = 0; i < list.length; i += IMPORT_INSERT_CHUNK) yield list.slice(i, i + IMPORT_INSERT_CHUNK);
}
