/**
 * The business metrics of the services, defined once: the code registers them from these
 * definitions, and the Grafana dashboard and Prometheus alert rules under deploy/ may refer only to
 * these names (a unit test keeps them in step). Labels are closed, low-cardinality sets: no ids, no
 * application or tenant names. Every series also carries the registry's `service` and `region`.
 */
export interface MetricDefinition<L extends string = string> {
  name: string;
  type: 'counter' | 'gauge' | 'histogram';
  help: string;
  labelNames: readonly L[];
  /** Histogram buckets, in the metric's unit. */
  buckets?: readonly number[];
}

function define<L extends string>(definition: MetricDefinition<L>): MetricDefinition<L> {
  return definition;
}

/** Webhook attempt latency buckets, seconds: receivers answer in milliseconds; the read timeout is 15 s. */
const WEBHOOK_LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30];

export const BUSINESS_METRICS = {
  grantDecisions: define({
    name: 'oap_grant_decisions_total',
    type: 'counter',
    help: 'Grant requests decided by the cascade (steps 3-15) and committed, by outcome (allow, deny, escalate) and the cascade step that decided (none for an allow).',
    labelNames: ['outcome', 'cascade_step'],
  }),
  escalationsOpen: define({
    name: 'oap_escalations_open',
    type: 'gauge',
    help: 'Escalations waiting for their approvers (status pending), read at scrape time.',
    labelNames: [],
  }),
  webhookAttempts: define({
    name: 'webhook_delivery_attempts_total',
    type: 'counter',
    help: 'Webhook delivery attempts sent, by outcome: success (2xx), http_error (another status), network_error (no response).',
    labelNames: ['outcome'],
  }),
  webhookLatency: define({
    name: 'webhook_delivery_duration_seconds',
    type: 'histogram',
    help: 'Time from sending a webhook attempt to its response or failure, seconds, by outcome.',
    labelNames: ['outcome'],
    buckets: WEBHOOK_LATENCY_BUCKETS,
  }),
  webhookEndpointsDisabled: define({
    name: 'webhook_endpoints_disabled',
    type: 'gauge',
    help: 'Webhook subscriptions disabled (410 Gone or consecutive failures) and not re-enabled, read at scrape time.',
    labelNames: [],
  }),
  outboxUnpublished: define({
    name: 'outbox_unpublished_events',
    type: 'gauge',
    help: 'Outbox rows committed but not yet published to the bus, per service schema relayed by this process (counted up to 10000).',
    labelNames: ['schema'],
  }),
  outboxOldestAge: define({
    name: 'outbox_oldest_unpublished_age_seconds',
    type: 'gauge',
    help: 'Age of the oldest unpublished outbox row, seconds (0 when none), per service schema relayed by this process.',
    labelNames: ['schema'],
  }),
  consumerLag: define({
    name: 'bus_consumer_lag_messages',
    type: 'gauge',
    help: 'Messages of the region stream a durable consumer of this process has not yet acknowledged (not delivered plus awaiting ack), per durable.',
    labelNames: ['durable'],
  }),
  deadLetters: define({
    name: 'bus_dead_letters_total',
    type: 'counter',
    help: 'Events a durable consumer of this process gave up on after its last delivery (max_deliver) and copied to the region dead-letter subject, per durable.',
    labelNames: ['durable'],
  }),
  auditEntriesAppended: define({
    name: 'audit_entries_appended_total',
    type: 'counter',
    help: 'Entries committed to the audit chain.',
    labelNames: [],
  }),
  auditCheckpointAge: define({
    name: 'audit_last_checkpoint_age_seconds',
    type: 'gauge',
    help: 'Age of the newest signed audit checkpoint, seconds; 0 before the first.',
    labelNames: [],
  }),
  auditWitnessedCheckpointAge: define({
    name: 'audit_last_witnessed_checkpoint_age_seconds',
    type: 'gauge',
    help: 'Age of the newest checkpoint cosigned by the external witness, seconds (since the first checkpoint while none is); -1 without a witness.',
    labelNames: [],
  }),
  auditWitnessUp: define({
    name: 'audit_witness_up',
    type: 'gauge',
    help: '1 when the last checkpoint submission to the external witness succeeded (or none failed yet), else 0; -1 without a witness.',
    labelNames: [],
  }),
  auditWitnessFailures: define({
    name: 'audit_witness_consecutive_failures',
    type: 'gauge',
    help: 'Checkpoint submissions to the witness that failed in a row.',
    labelNames: [],
  }),
  importRows: define({
    name: 'consent_import_rows_processed_total',
    type: 'counter',
    help: 'Rows of consent record imports processed and committed, by outcome (created, duplicate, failed).',
    labelNames: ['outcome'],
  }),
  attestationsWitnessed: define({
    name: 'oversight_attestations_witnessed_total',
    type: 'counter',
    help: 'Attestations witnessed (replays excluded), by submitted decision and sequence gap.',
    labelNames: ['decision', 'sequence_gap'],
  }),
  postMessageDropped: define({
    name: 'trust_surface_postmessage_dropped_total',
    type: 'counter',
    help: 'postMessage v2 messages a decision frame dropped for want of an allowed target origin, by reason.',
    labelNames: ['reason'],
  }),
} as const;

/** The HTTP metrics every process exports beside the business ones. */
export const HTTP_METRIC_NAMES = ['http_requests_total', 'http_request_duration_seconds'] as const;

/** Every sample name a metric exposes: a histogram adds `_bucket`, `_sum` and `_count`. */
export function sampleNamesOf(definition: Pick<MetricDefinition, 'name' | 'type'>): string[] {
  return definition.type === 'histogram'
    ? [`${definition.name}_bucket`, `${definition.name}_sum`, `${definition.name}_count`]
    : [definition.name];
}
