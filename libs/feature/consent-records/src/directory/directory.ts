import { createHmac } from 'node:crypto';
import { purposeStatuses, type ConsentRecord, type Subject, type Withdrawal } from '../records/record';

/** What crosses regions about one person at one application (spec: "What the service does" 7). */
export interface DirectoryStatus {
  purposes: Array<{ purpose: string; status: 'active' | 'inactive' }>;
  activeCount: number;
}

/**
 * The application's reference of a person, as records are matched (external id first, else the
 * lower-cased email); undefined for a subject with neither.
 */
export function referenceOf(subject: {
  external_id?: string | null;
  email?: string | null;
}): { external_id: string } | { email: string } | undefined {
  if (subject.external_id) return { external_id: subject.external_id };
  if (subject.email) return { email: subject.email.toLowerCase() };
  return undefined;
}

/**
 * The opaque identifier of a person in the directory: HMAC-SHA256 (hex) under the deployment's
 * directory key of the application id and the reference. Without the key it is not reversible
 * and not linkable across applications.
 */
export function subjectRef(key: Buffer, applicationId: string, reference: { external_id: string } | { email: string }): string {
  const value = 'external_id' in reference ? `external_id:${reference.external_id}` : `email:${reference.email.toLowerCase()}`;
  return createHmac('sha256', key).update(`svc directory v1\u0000${applicationId}\u0000${value}`).digest('hex');
}

/**
 * Display initials: the first letters of up to two parts of the email's local part
 * (`jane.doe@…` → `JD`); none from an external id, which is the application's opaque key.
 */
export function initialsOf(subject: Subject): string {
  if (!subject.email) return '';
  const local = subject.email.split('@', 1)[0] ?? '';
  return local
    .split(/[^\p{L}]+/u)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => [...part][0]!.toUpperCase())
    .join('');
}

/** Per purpose of the person's current records: active (granted, not withdrawn, not expired) or not. */
export function directoryStatus(heads: readonly ConsentRecord[], withdrawals: readonly Withdrawal[], now: Date): DirectoryStatus {
  const active = new Map<string, boolean>();
  for (const record of heads) {
    for (const p of purposeStatuses(
      record,
      withdrawals.filter((w) => w.recordId === record.id),
      now,
    )) {
      active.set(p.purpose, (active.get(p.purpose) ?? false) || p.status === 'granted');
    }
  }
  const purposes = [...active.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([purpose, on]) => ({ purpose, status: on ? ('active' as const) : ('inactive' as const) }));
  return { purposes, activeCount: purposes.filter((p) => p.status === 'active').length };
}
