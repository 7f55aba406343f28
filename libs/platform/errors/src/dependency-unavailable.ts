/** Socket errors of a dependency (database, bus) that went away or cannot be reached. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/**
 * Postgres: the connection failed, was lost or refused (08000, 08001, 08003, 08004, 08006; not a
 * protocol violation), the server is shutting down or starting (57P01–57P03), too many connections (53300).
 */
const UNAVAILABLE_SQLSTATE = /^(0800[01346]|57P0[1-3]|53300)$/;
/** node-postgres reports a lost or timed-out connection by message only. */
const LOST_CONNECTION_MESSAGE =
  /connection terminated|timeout exceeded when trying to connect|connection error and is not queryable|connection timeout/i;

/**
 * A dependency of the request (the database, the bus) is unreachable or went away mid-request:
 * the request may be retried once it is back, so it answers 503 with Retry-After, not 500.
 * Looks through TypeORM's `driverError` and `cause` wrappers.
 */
export function isDependencyUnavailable(error: unknown, depth = 0): boolean {
  // Duck-typed: Node's own socket errors may come from another realm than this module's `Error`.
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  if (typeof message === 'string' && LOST_CONNECTION_MESSAGE.test(message)) return true;
  const wrapped = error as { driverError?: unknown; cause?: unknown };
  return isDependencyUnavailable(wrapped.driverError, depth + 1) || isDependencyUnavailable(wrapped.cause, depth + 1);
}
