import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { DomainError, flattenValidationErrors, isDomainError, validationError } from '@svc/errors';
import type { FlowVersion } from '../flows/flow';
import { recordDraft } from '../records/record-draft';
import type { RecordDraft } from '../records/record-writer';
import { RecordFields } from '../records/records.dto';

/** A row either becomes a draft or is refused with a reason code (never thrown: rows never block each other). */
export type RowCheck = { ok: true; draft: RecordDraft } | { ok: false; reasonCode: string; detail: Record<string, unknown> };

/**
 * Validates one raw import row exactly like a Record API body (unknown fields, types, rules,
 * refusals by name) and turns it into an `imported` draft.
 */
export function checkImportRow(raw: unknown, flow: FlowVersion, applicationId: string, now: Date): RowCheck {
  try {
    const fields = plainToInstance(RecordFields, raw, { enableImplicitConversion: false });
    const errors = validateSync(fields as object, {
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      validationError: { target: false, value: false },
    });
    if (errors.length > 0) throw validationError(flattenValidationErrors(errors));
    // Required on import rows (optional on the Record API): re-running an import must create nothing twice.
    if (fields.idempotency_key === undefined)
      throw new DomainError('invalid', 'invalid_request', 'idempotency_key is required on every import row', { field: 'idempotency_key' });
    return { ok: true, draft: recordDraft(fields, flow, applicationId, 'imported', now) };
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return { ok: false, reasonCode: error.code, detail: { message: error.message, ...(error.detail ?? {}) } };
  }
}
