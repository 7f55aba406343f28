/**
 * The client's address, the key of per-client rate limits: the router's X-Forwarded-For when the
 * peer is the region's own router on loopback, the socket peer otherwise, so a client reaching a
 * service directly cannot choose its own key. Bounded so a forged header cannot grow a limiter's map keys.
 */
export function clientAddress(request: { ip: string; headers: Record<string, string | string[] | undefined> }): string {
  const forwarded = request.headers['x-forwarded-for'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
  const loopback = request.ip === '127.0.0.1' || request.ip === '::1' || request.ip === '::ffff:127.0.0.1';
  return loopback && first ? first.slice(0, 64) : request.ip;
}
