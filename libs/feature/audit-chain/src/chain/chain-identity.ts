/**
 * The C2SP origin of a region's audit log: `<public host>/audit/<region>`, e.g.
 * `api.example.com/audit/us`. Also the name of the log's signing key in signed notes.
 */
export function chainOrigin(publicBaseUrl: string, region: string): string {
  return `${new URL(publicBaseUrl).host}/audit/${region}`;
}

/** Type of the first entry (index 0) of every chain; its hash is the chain's genesis hash. */
export const GENESIS_ENTRY_TYPE = 'audit.genesis';
