import type { ConsentImportDryRunResponse } from '../import.response';
import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import type { FlowVersion } from '../../flows/flow';
import { requestDigest } from '../../records/record-writer';
import { checkImportRow } from '../import-row';
import { ImportsRepository } from '../imports.repository';

/** Row outcomes of a dry run: what a real import would do. Nothing is written. */
export type DryRunOutcome = 'would_create' | 'duplicate' | 'failed';

type DryRunRow = ConsentImportDryRunResponse['rows'][number];

/**
 * Dry run: validates every row and checks its idempotency key against existing records (read
 * only), reporting per row what the import would do. Writes no record and no event; rows arrive
 * in chunks, so only the report grows with the import.
 */
@Injectable()
export class DryRunImport {
  constructor(
    private readonly imports: ImportsRepository,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, flow: FlowVersion, chunks: AsyncIterable<readonly unknown[]>): Promise<ConsentImportDryRunResponse> {
    const now = this.clock.now();
    const seen = new Map<string, string>();
    const results: DryRunRow[] = [];
    for await (const rows of chunks) {
      const checks = rows.map((raw) => checkImportRow(raw, flow, principal.applicationId, now));
      const keys = checks.flatMap((c) => (c.ok && c.draft.idempotencyKey !== null ? [c.draft.idempotencyKey] : []));
      const existing = await this.imports.existingKeys(principal.applicationId, keys);
      for (const check of checks) {
        const index = results.length;
        if (!check.ok) {
          results.push({ index, outcome: 'failed', record_id: null, reason_code: check.reasonCode, detail: check.detail });
          continue;
        }
        const key = check.draft.idempotencyKey!;
        const digest = requestDigest(check.draft);
        const known = existing.get(key);
        const earlier = seen.get(key);
        seen.set(key, earlier ?? digest);
        const original = known?.digest ?? earlier;
        if (original === undefined) results.push({ index, outcome: 'would_create', record_id: null, reason_code: null, detail: null });
        else if (original === digest)
          results.push({ index, outcome: 'duplicate', record_id: known?.recordId ?? null, reason_code: null, detail: null });
        else
          results.push({
            index,
            outcome: 'failed',
            record_id: null,
            reason_code: 'idempotency_key_reused',
            detail: { message: 'This idempotency_key was used with a different request body', idempotency_key: key },
          });
      }
    }
    const count = (o: DryRunOutcome) => results.filter((r) => r.outcome === o).length;
    return {
      id: null,
      object: 'consent_import',
      application_id: principal.applicationId,
      flow_id: flow.flowId,
      dry_run: true,
      status: 'completed',
      counts: { total: results.length, would_create: count('would_create'), duplicates: count('duplicate'), failed: count('failed') },
      rows: results,
    };
  }
}
