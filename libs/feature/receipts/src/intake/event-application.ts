import type { RpcClient } from '@svc/bus';
import type { ApplicationFacts } from '@svc/contracts';

/** What a receipt takes from its application: whether it is known, its display name and its jurisdiction. */
export interface ReceiptApplication {
  found: boolean;
  name?: string;
  jurisdiction?: string;
}

/**
 * The application facts a receipt names, from the event itself: its producer stamps them
 * (`application`) when it writes the event, so the receipt is built without decision-gateway.
 * Upgrade path: an event written before producers stamped them (or when the producer could not
 * read them then) has none, and only for such an event decision-gateway is asked
 * (`gateway.get_application`). Once the streams hold no such events this fallback can go.
 */
export async function applicationOfEvent(
  rpc: RpcClient,
  applicationId: string,
  stamped: ApplicationFacts | undefined,
): Promise<ReceiptApplication> {
  // An unknown application is stamped with an empty name: the receipt then names it by its id.
  if (stamped) return { found: true, name: stamped.name || undefined, jurisdiction: stamped.jurisdiction };
  return rpc.call('gateway.get_application', { applicationId });
}
