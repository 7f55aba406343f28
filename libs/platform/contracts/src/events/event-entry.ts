import type { DescMessage } from '@bufbuild/protobuf';

/** The one process that writes an event to its outbox (a feature library, or the admin CLI). */
export type EventProducer =
  'decision-gateway' | 'consent-records' | 'oap-authorizer' | 'oversight-witness' | 'audit-chain' | 'webhook-dispatcher' | 'admin-cli';

/**
 * One bus event type of the catalogue, declared beside its message: its subject suffix is the key
 * of its area's map (`<prefix>.<region>.evt.<type>`).
 * - `producer`: the only service that publishes it (a test scans production code for this).
 * - `webhook`: `false` (never delivered), `true` (delivered under its own name) or `{ as }`: the
 *   public webhook types it is delivered as, when its public name differs from the bus name (the
 *   webhook dispatcher's mapping picks one per event).
 * - `audited`: appended to the audit chain.
 * - `meaning`: what one event of this type says, in one line.
 */
export interface EventEntry {
  readonly schema: DescMessage;
  readonly version: number;
  readonly producer: EventProducer;
  readonly webhook: boolean | { readonly as: readonly string[] };
  readonly audited: boolean;
  readonly meaning: string;
}
