/**
 * Data subject requests (GDPR Art. 15–22; spec Protect, `/data_requests`): what a request is, its
 * states and its legal clock. Pure: no I/O.
 */

/** What the person asks for. */
export const DATA_REQUEST_KINDS = ['access', 'portability', 'rectification', 'erasure', 'objection', 'restriction'] as const;
export type DataRequestKind = (typeof DATA_REQUEST_KINDS)[number];

/** received → in_progress → completed | rejected (received may also complete or be rejected directly). */
export const DATA_REQUEST_STATUSES = ['received', 'in_progress', 'completed', 'rejected'] as const;
export type DataRequestStatus = (typeof DATA_REQUEST_STATUSES)[number];

/** Who raised it: the signed-in person with their own access token, or the application for them. */
export type RaisedBy = 'person' | 'application';

/** Kinds that name the processing they stop. */
export const PURPOSE_KINDS: readonly DataRequestKind[] = ['objection', 'restriction'];

/** GDPR Art. 12(3): "without undue delay and in any event within one month of receipt of the request". */
export const RESPONSE_DAYS = 30;
/** Art. 12(3): "may be extended by two further months where necessary": once, with a reason. */
export const MAX_EXTENSION_DAYS = 60;

const DAY_MS = 86_400_000;

/** The changes the person asks for in their contact data (rectification). */
export interface Rectification {
  displayName?: string;
  email?: string;
}

export interface DataRequest {
  id: string;
  applicationId: string;
  personId: string;
  kind: DataRequestKind;
  status: DataRequestStatus;
  raisedBy: RaisedBy;
  purposes: string[];
  rectification: Rectification | null;
  receivedAt: Date;
  dueAt: Date;
  extendedAt: Date | null;
  extensionReason: string | null;
  startedAt: Date | null;
  completedAt: Date | null;
  rejectedAt: Date | null;
  rejectionReason: string | null;
  /** What the fulfilment did (counts, export manifest); `{}` until completed. */
  result: Record<string, unknown>;
  updatedAt: Date;
}

/** The legal deadline of a request received at `receivedAt`. */
export function initialDueAt(receivedAt: Date): Date {
  return new Date(receivedAt.getTime() + RESPONSE_DAYS * DAY_MS);
}

export function isFinal(status: DataRequestStatus): boolean {
  return status === 'completed' || status === 'rejected';
}

/** Past its deadline and still open. */
export function isOverdue(request: Pick<DataRequest, 'status' | 'dueAt'>, now: Date): boolean {
  return !isFinal(request.status) && now.getTime() > request.dueAt.getTime();
}

/** Why a move is refused; the controller turns it into the feature's error code. */
export type MoveRefusal =
  | { code: 'data_request_final'; status: DataRequestStatus }
  | { code: 'data_request_already_extended' }
  | { code: 'data_request_overdue'; dueAt: Date }
  | { code: 'data_request_extension_invalid'; maxDays: number }
  | { code: 'data_request_not_started'; status: DataRequestStatus };

export type MoveOutcome = { ok: DataRequest } | { refused: MoveRefusal };

/**
 * One extension, with a reason, by 1–60 days from the current deadline, while the request is open
 * and not yet overdue (the person must be told within the first month).
 */
export function extend(request: DataRequest, days: number, reason: string, now: Date): MoveOutcome {
  if (isFinal(request.status)) return { refused: { code: 'data_request_final', status: request.status } };
  if (request.extendedAt) return { refused: { code: 'data_request_already_extended' } };
  if (!Number.isInteger(days) || days < 1 || days > MAX_EXTENSION_DAYS)
    return { refused: { code: 'data_request_extension_invalid', maxDays: MAX_EXTENSION_DAYS } };
  if (isOverdue(request, now)) return { refused: { code: 'data_request_overdue', dueAt: request.dueAt } };
  return {
    ok: { ...request, dueAt: new Date(request.dueAt.getTime() + days * DAY_MS), extendedAt: now, extensionReason: reason, updatedAt: now },
  };
}

/** received → in_progress. */
export function start(request: DataRequest, now: Date): MoveOutcome {
  if (request.status !== 'received')
    return {
      refused: isFinal(request.status)
        ? { code: 'data_request_final', status: request.status }
        : { code: 'data_request_not_started', status: request.status },
    };
  return { ok: { ...request, status: 'in_progress', startedAt: now, updatedAt: now } };
}

/** received | in_progress → completed, with what the fulfilment did. */
export function complete(request: DataRequest, result: Record<string, unknown>, now: Date): MoveOutcome {
  if (isFinal(request.status)) return { refused: { code: 'data_request_final', status: request.status } };
  return {
    ok: {
      ...request,
      status: 'completed',
      startedAt: request.startedAt ?? now,
      completedAt: now,
      result,
      rectification: null,
      updatedAt: now,
    },
  };
}

/** received | in_progress → rejected, with the reason told to the person (Art. 12(4)). */
export function reject(request: DataRequest, reason: string, now: Date): MoveOutcome {
  if (isFinal(request.status)) return { refused: { code: 'data_request_final', status: request.status } };
  return { ok: { ...request, status: 'rejected', rejectedAt: now, rejectionReason: reason, rectification: null, updatedAt: now } };
}
