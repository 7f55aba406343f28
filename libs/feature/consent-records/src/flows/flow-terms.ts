import { consentRecordsError } from '../consent-records.errors';
import type { FlowTerms } from './flow';
import type { CreateFlowBody, FlowDataFieldInput, FlowPurposeInput, UpdateFlowBody } from './flows.dto';

function purposesOf(input: readonly FlowPurposeInput[]): FlowTerms['purposes'] {
  return input.map((p) => ({
    key: p.key,
    label: p.label,
    description: p.description ?? '',
    mechanism: p.mechanism ?? 'consent',
    required: p.required ?? false,
  }));
}

function dataFieldsOf(input: readonly FlowDataFieldInput[]): FlowTerms['data_fields'] {
  return input.map((f) => ({ key: f.key, label: f.label, required: f.required ?? false }));
}

/** Keys identify purposes and fields in records and receipts, so they must be unique per version. */
function assertUniqueKeys(terms: FlowTerms): FlowTerms {
  for (const [field, rows] of [
    ['purposes', terms.purposes],
    ['data_fields', terms.data_fields],
  ] as const) {
    const seen = new Set<string>();
    for (const row of rows) {
      if (seen.has(row.key))
        throw consentRecordsError('flow_duplicate_key', `${field} key "${row.key}" is used twice`, { field, key: row.key });
      seen.add(row.key);
    }
  }
  for (const field of ['consent_duration', 'retention_period'] as const) {
    const value = terms[field];
    // "P0D" and friends pass the pattern but declare nothing.
    if (value !== null && !/[1-9]/.test(value))
      throw consentRecordsError('flow_duration_invalid', `${field} must be longer than zero`, { field });
  }
  return terms;
}

/** Terms of a new flow from its create body, defaults filled in. */
export function termsFromCreate(body: CreateFlowBody): FlowTerms {
  return assertUniqueKeys({
    name: body.name,
    locale: body.locale,
    presentation: { title: body.presentation.title, description: body.presentation.description ?? '' },
    policy_url: body.policy_url ?? null,
    purposes: purposesOf(body.purposes),
    data_fields: dataFieldsOf(body.data_fields ?? []),
    purpose_of_use: body.purpose_of_use ?? null,
    retention_period: body.retention_period ?? null,
    revocation_policy: body.revocation_policy ?? 'any_time',
    consent_path: body.consent_path ?? 'standard',
    requirements: body.requirements ?? [],
    consent_duration: body.consent_duration ?? null,
  });
}

/** Terms after applying an update body to `current`; absent fields keep their value. */
export function termsWithUpdate(current: FlowTerms, body: UpdateFlowBody): FlowTerms {
  return assertUniqueKeys({
    name: body.name ?? current.name,
    locale: body.locale ?? current.locale,
    presentation: body.presentation
      ? { title: body.presentation.title, description: body.presentation.description ?? '' }
      : current.presentation,
    policy_url: body.policy_url ?? current.policy_url,
    purposes: body.purposes ? purposesOf(body.purposes) : current.purposes,
    data_fields: body.data_fields ? dataFieldsOf(body.data_fields) : current.data_fields,
    purpose_of_use: body.purpose_of_use ?? current.purpose_of_use,
    retention_period: body.retention_period ?? current.retention_period,
    revocation_policy: body.revocation_policy ?? current.revocation_policy,
    consent_path: body.consent_path ?? current.consent_path,
    requirements: body.requirements ?? current.requirements,
    consent_duration: body.consent_duration ?? current.consent_duration,
  });
}
