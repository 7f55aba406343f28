import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import type { FlowVersion } from '../../flows/flow';
import { FlowsRepository } from '../../flows/flows.repository';
import { activeCapturableFlow } from '../active-flow';
import { recordDraft } from '../record-draft';
import { RecordBatcher } from '../record-batcher';
import { RecordWriter, type WriteOutcome } from '../record-writer';
import type { RecordConsentBody } from '../records.dto';
import { RecordsRepository } from '../records.repository';

const UNIQUE_VIOLATION = '23505';

/**
 * Record API: writes a `controller_attested` record against the flow's active version. A retry
 * with the same idempotency_key returns the original record; the same key with another body is
 * refused. `recorded_at` is platform time, `captured_at` kept as given. Writes go through the
 * group-commit batcher.
 */
@Injectable()
export class RecordConsent {
  /** Flow lookups in flight: concurrent requests for one flow share a query (nothing is kept after it answers). */
  private readonly flowLookups = new Map<string, Promise<FlowVersion>>();

  constructor(
    private readonly flows: FlowsRepository,
    private readonly records: RecordsRepository,
    private readonly writer: RecordWriter,
    private readonly batcher: RecordBatcher,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, body: RecordConsentBody): Promise<WriteOutcome> {
    const now = this.clock.now();
    const flow = await this.activeFlow(principal.applicationId, body.flow_id);
    const draft = recordDraft(body, flow, principal.applicationId, 'controller_attested', now);
    try {
      return await this.batcher.submit(draft);
    } catch (error) {
      // Two first requests with one key for different people raced past the lookup: replay the winner.
      if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
      return this.records.transaction((manager) => this.writer.write(manager, draft, this.clock.now()));
    }
  }

  private activeFlow(applicationId: string, flowId: string): Promise<FlowVersion> {
    const key = `${applicationId}\u0000${flowId}`;
    const inFlight = this.flowLookups.get(key);
    if (inFlight) return inFlight;
    const lookup = activeCapturableFlow(this.flows, applicationId, flowId).finally(() => this.flowLookups.delete(key));
    this.flowLookups.set(key, lookup);
    return lookup;
  }
}
