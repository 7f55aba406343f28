import { createHash } from 'node:crypto';
import { consentRecordsError } from '../consent-records.errors';
import type { FlowTerms } from '../flows/flow';
import { assertDecisionsAcceptable } from '../records/record-decisions';
import type { PurposeDecision } from '../records/record';

/** Spec, Limits: an uncommitted capture expires 24 hours after creation and leaves no record. */
export const CAPTURE_LIFETIME_MS = 24 * 3600_000;

/** Browser channels a capture can come from: the snippet on the organisation's own controls, or the service-rendered field. */
export const CAPTURE_CHANNELS = ['form_capture_browser', 'embedded_field_browser'] as const;
export type CaptureChannel = (typeof CAPTURE_CHANNELS)[number];

/** Controls that carry a yes/no decision; any other mapped control is refused by name. */
export const DECISION_CONTROLS = ['checkbox', 'radio'] as const;

/** One form control bound to a purpose, as the snippet observed it at submission. */
export interface CapturedField {
  purpose: string;
  /** Control type: checkbox, radio, or anything else the organisation mapped (text, hidden, select…). */
  control: string;
  checked: boolean;
  default_checked: boolean;
  /** The control carried the HTML `required` attribute. */
  required: boolean;
}

/** A stored, uncommitted (or committed) capture. */
export interface Capture {
  tokenSha256: string;
  applicationId: string;
  flowId: string;
  flowVersion: number;
  origin: string;
  channel: CaptureChannel;
  decisions: Record<string, PurposeDecision>;
  createdAt: Date;
  expiresAt: Date;
  committedAt: Date | null;
  recordId: string | null;
  /** SHA-256 (hex) of the service-rendered field shown (channel embedded_field_browser only). */
  renderingDigest: string | null;
}

/** Captures are stored by the SHA-256 of their token: a database read does not yield usable tokens. */
export function captureTokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Spec, Other rules: capture refusals by name. Checks the controls first (a decision mapped to a
 * control that cannot carry one; a required control mapped to a consent purpose), then the
 * decisions like the Record API (purpose not in the flow, missing, default-ticked, mandatory).
 */
export function decisionsFromFields(terms: Pick<FlowTerms, 'purposes'>, fields: readonly CapturedField[]): Record<string, PurposeDecision> {
  const mechanism = new Map(terms.purposes.map((p) => [p.key, p.mechanism]));
  for (const field of fields) {
    if (!(DECISION_CONTROLS as readonly string[]).includes(field.control)) {
      throw consentRecordsError(
        'field_cannot_carry_decision',
        `purpose "${field.purpose}" is mapped to a ${field.control} control, which cannot carry a decision`,
        { purpose: field.purpose, control: field.control },
      );
    }
    if (field.required && mechanism.get(field.purpose) === 'consent') {
      throw consentRecordsError(
        'required_field_mapped_to_consent',
        `consent purpose "${field.purpose}" is mapped to a required control; consent cannot be a condition of the form`,
        { purpose: field.purpose },
      );
    }
  }
  const decisions: Record<string, PurposeDecision> = {};
  for (const field of fields) {
    decisions[field.purpose] = {
      decision: field.checked ? 'granted' : 'declined',
      default_checked: field.default_checked,
      mandatory: field.required,
    };
  }
  assertDecisionsAcceptable(terms, decisions);
  return decisions;
}
