import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { refusalOf, type EgressEnvironment, type RefusedRange } from './address-policy';

/** Resolves a host name to all its addresses (node:dns lookup, or a stand-in in tests). */
export type ResolveAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export const resolveAllWithDns: ResolveAll = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/** Code of the error a guarded connection fails with when its target address is refused. */
export const TARGET_REFUSED_CODE = 'ERR_EGRESS_TARGET_REFUSED';

/** A target address outside what the environment may reach. */
export class TargetRefusedError extends Error {
  readonly code = TARGET_REFUSED_CODE;

  constructor(
    readonly address: string,
    readonly range: RefusedRange,
  ) {
    super(`target ${address} is ${range}`);
    this.name = 'TargetRefusedError';
  }
}

/** Host name of a URL without IPv6 brackets. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** The first refused address among `addresses`, with its range. */
export function firstRefused(addresses: readonly string[], environment: EgressEnvironment): TargetRefusedError | undefined {
  for (const address of addresses) {
    const range = refusalOf(address, environment);
    if (range) return new TargetRefusedError(address, range);
  }
  return undefined;
}

/**
 * A `lookup` for net/tls connect that resolves every address of the host, refuses the connection
 * when any of them is refused for the environment, and otherwise hands back exactly the addresses
 * it checked — the socket connects to one of those, so a DNS answer that changes between the check
 * and the connect (rebinding) cannot slip a private address in.
 */
export function guardedLookup(environment: EgressEnvironment, resolveAll: ResolveAll = resolveAllWithDns): LookupFunction {
  return (hostname, options, callback) => {
    resolveAll(hostname, { all: true, family: options.family, hints: options.hints }, (error, addresses) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const refused = firstRefused(
        addresses.map((a) => a.address),
        environment,
      );
      const first = addresses[0];
      if (refused || !first) {
        callback(refused ?? Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        return;
      }
      if (options.all) (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

/**
 * Configuration-time check of a URL's host: a literal address is judged as is; a name is resolved
 * and refused when any of its addresses is. A name that does not resolve (yet) is accepted — every
 * call through a guarded agent checks again before it connects. `hostname` comes from a parsed
 * URL, so octal, hexadecimal and integer forms of an IPv4 host are already dotted.
 */
export async function refusedTargetOf(
  hostname: string,
  environment: EgressEnvironment,
  resolveAll: ResolveAll = resolveAllWithDns,
  timeoutMs = 2_000,
): Promise<TargetRefusedError | undefined> {
  const host = bareHost(hostname);
  if (isIP(host) !== 0) return firstRefused([host], environment);
  const addresses = await new Promise<string[]>((resolve) => {
    const timer = setTimeout(() => resolve([]), timeoutMs).unref();
    resolveAll(host, { all: true }, (error, found) => {
      clearTimeout(timer);
      resolve(error ? [] : found.map((a) => a.address));
    });
  });
  return firstRefused(addresses, environment);
}

/** The refusal carried by an error a guarded connection failed with (undici may wrap it as `cause`). */
export function targetRefusalIn(error: unknown): TargetRefusedError | undefined {
  if (error instanceof TargetRefusedError) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof TargetRefusedError ? cause : undefined;
}
