import type { ConsentImportDryRunResponse } from '../import.response';
import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { FlowsRepository } from '../../flows/flows.repository';
import { activeCapturableFlow } from '../../records/active-flow';
import { requestDigest } from '../../records/record-writer';
import { checkImportRow } from '../import-row';
import { ImportsRepository } from '../imports.repository';

/** Row outcomes of a dry run: what a real import would do. Nothing is written. */
export type DryRunOutcome = 'would_create' | 'duplicate' | 'failed';

/**
 * Dry run: validates every row and checks its idempotency key against existing records (read
 * only), reporting per row what the import would do. Writes nothing: no job, no record, no event.
 */
@Injectable()
export class DryRunImport {
  constructor(
    private readonly flows: FlowsRepository,
    private readonly imports: ImportsRepository,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, flowId: string, rows: readonly unknown[]): Promise<ConsentImportDryRunResponse> {
    const now = this.clock.now();
    const flow = await activeCapturableFlow(this.flows, principal.applicationId, flowId);
    const checks = rows.map((raw) => checkImportRow(raw, flow, principal.applicationId, now));
    const keys = checks.flatMap((c) => (c.ok && c.draft.idempotencyKey !== null ? [c.draft.idempotencyKey] : []));
    const existing = await this.imports.existingKeys(principal.applicationId, keys);
    const seen = new Map<string, string>();
    const results = checks.map((check, index) => {
      if (!check.ok)
        return { index, outcome: 'failed' as DryRunOutcome, record_id: null, reason_code: check.reasonCode, detail: check.detail };
      const key = check.draft.idempotencyKey!;
      const digest = requestDigest(check.draft);
      const known = existing.get(key);
      const earlier = seen.get(key);
      seen.set(key, earlier ?? digest);
      const original = known?.digest ?? earlier;
      if (original === undefined)
        return { index, outcome: 'would_create' as DryRunOutcome, record_id: null, reason_code: null, detail: null };
      if (original === digest)
        return { index, outcome: 'duplicate' as DryRunOutcome, record_id: known?.recordId ?? null, reason_code: null, detail: null };
      return {
        index,
        outcome: 'failed' as DryRunOutcome,
        record_id: null,
        reason_code: 'idempotency_key_reused',
        detail: { message: 'This idempotency_key was used with a different request body', idempotency_key: key },
      };
    });
    const count = (o: DryRunOutcome) => results.filter((r) => r.outcome === o).length;
    return {
      id: null,
      object: 'consent_import',
      application_id: principal.applicationId,
      flow_id: flowId,
      dry_run: true,
      status: 'completed',
      counts: { total: rows.length, would_create: count('would_create'), duplicates: count('duplicate'), failed: count('failed') },
      rows: results,
    };
  }
}
