/**
 * The client's address, the key of per-client rate limits: the router's X-Forwarded-For when the
 * peer is the region's own router on loopback, the socket peer otherwise, so a client reaching a
 * service directly cannot choose its own key. Bounded so a forged header cannot grow a limiter's map keys.
 */
export function clientAddress(request: { ip: string; headers: Record<string, string | string[] | undefined> }): string {
  // Read once: Fastify computes `ip` on each access. Public reads answered from memory call this on every request.
  const ip = request.ip;
  if (ip !== '127.0.0.1' && ip !== '::1' && ip !== '::ffff:127.0.0.1') return ip;
  const forwarded = request.headers['x-forwarded-for'];
  const header = Array.isArray(forwarded) ? forwarded[0] : forwarded;
  if (header === undefined) return ip;
  const comma = header.indexOf(',');
  const first = (comma < 0 ? header : header.slice(0, comma)).trim();
  return first ? first.slice(0, 64) : ip;
}
