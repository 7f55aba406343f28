import type { TraceCarrier } from '@svc/telemetry';
import type { SignatureFormat } from '../subscriptions/signature-formats';
import type { WebhookDeliveryResponse } from './delivery.response';

/** A delivery to enqueue: one event to one subscription. */
export interface NewDelivery {
  id: string;
  subscriptionId: string;
  applicationId: string;
  eventId: string;
  eventType: string;
  isTest: boolean;
  /** The exact JSON body every attempt sends. */
  payload: string;
  maxAttempts: number;
  /** Trace of the event delivered; the active one (e.g. a test delivery's request) when absent. */
  trace?: TraceCarrier;
}

/** A due delivery leased to one worker, with what it needs to send the next attempt. */
export interface ClaimedDelivery {
  id: string;
  subscriptionId: string;
  applicationId: string;
  eventId: string;
  eventType: string;
  isTest: boolean;
  payload: string;
  /** Attempts already made; this attempt is number `attempts + 1`. */
  attempts: number;
  maxAttempts: number;
  createdAt: Date;
  url: string;
  /** Environment of the subscription: decides which target addresses the attempt may reach. */
  environment: 'development' | 'production';
  secretEnc: Buffer;
  previousSecretEnc: Buffer | null;
  previousSecretExpiresAt: Date | null;
  /** Signature header sets the subscription asked for (`svc` always among them). */
  signatureFormats: readonly SignatureFormat[];
  /** Trace the attempts join (the delivered event's). */
  trace?: TraceCarrier;
}

/** What one attempt produced, ready to be recorded. */
export interface AttemptOutcome {
  delivery: ClaimedDelivery;
  attemptNo: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/** One row of the delivery log. */
export interface DeliveryLogEntry {
  id: string;
  eventId: string;
  eventType: string;
  isTest: boolean;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  maxAttempts: number;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  payload: string | null;
  createdAt: Date;
  completedAt: Date | null;
  attemptLog: Array<{
    attemptNo: number;
    startedAt: Date;
    durationMs: number;
    statusCode: number | null;
    error: string | null;
    outcome: string;
  }>;
}

/** API representation of a delivery log entry. The payload is null once retention purged it. */
export function deliveryView(d: DeliveryLogEntry): Record<string, unknown> {
  return {
    id: d.id,
    object: 'webhook_delivery',
    event_id: d.eventId,
    event_type: d.eventType,
    test: d.isTest,
    status: d.status,
    attempt_count: d.attempts,
    max_attempts: d.maxAttempts,
    next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    created_at: d.createdAt.toISOString(),
    completed_at: d.completedAt?.toISOString() ?? null,
    payload: d.payload === null ? null : (JSON.parse(d.payload) as unknown),
    attempts: d.attemptLog.map((a) => ({
      number: a.attemptNo,
      started_at: a.startedAt.toISOString(),
      latency_ms: a.durationMs,
      status_code: a.statusCode,
      error: a.error,
      outcome: a.outcome,
    })),
  } satisfies WebhookDeliveryResponse;
}
