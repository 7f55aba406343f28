import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import type { EgressEnvironment } from './address-policy';
import { bareHost, firstRefused, guardedLookup, resolveAllWithDns, type ResolveAll } from './target-check';

export interface GuardedAgentOptions {
  connectTimeoutMs: number;
  /** Wait for the response headers, then for each body chunk, ms. */
  readTimeoutMs: number;
  /** Connections per origin; unlimited when absent. */
  connections?: number;
  keepAliveTimeoutMs?: number;
  /** Host name resolution; node:dns unless a test stands in. */
  resolveAll?: ResolveAll;
}

/**
 * An undici Agent whose every new connection is checked against the environment's address policy:
 * a literal address as is, a name through a guarded lookup whose checked addresses are the only ones
 * the socket may use. A refused connection fails with a TargetRefusedError (see targetRefusalIn).
 */
export function guardedAgent(environment: EgressEnvironment, options: GuardedAgentOptions): Agent {
  const connector = buildConnector({
    timeout: options.connectTimeoutMs,
    lookup: guardedLookup(environment, options.resolveAll ?? resolveAllWithDns),
  });
  return new Agent({
    // net.connect skips the lookup for a literal address, so a literal is judged here.
    connect: (connectOptions, callback) => {
      const host = bareHost(connectOptions.hostname);
      const refused = isIP(host) !== 0 ? firstRefused([host], environment) : undefined;
      if (refused) callback(refused, null);
      else connector(connectOptions, callback);
    },
    headersTimeout: options.readTimeoutMs,
    bodyTimeout: options.readTimeoutMs,
    ...(options.connections === undefined ? {} : { connections: options.connections }),
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
  });
}
