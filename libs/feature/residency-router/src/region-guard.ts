import { regionSegmentOf } from '@svc/ids';

export type RegionVerdict =
  { action: 'local' } | { action: 'misdirected'; homeRegion: string } | { action: 'redirect'; homeRegion: string };

/** Public, cacheable documents a foreign router redirects (307) to the home region instead of refusing. */
const REDIRECTABLE = /^\/api\/v1\/agents\/[^/]+\/capabilities$/;

/**
 * Decides whether a request belongs to this region. Every path segment and query value is read
 * for a regional identifier (`tp_eu_…`, `agent_ap_…`); one homed elsewhere is never served or
 * proxied here. `dev` segments belong to whichever region runs the development deployment.
 */
export function regionVerdict(method: string, rawUrl: string, localRegion: string): RegionVerdict {
  const url = new URL(rawUrl, 'http://router.invalid');
  const candidates: string[] = [];
  for (const segment of url.pathname.split('/')) {
    if (!segment) continue;
    try {
      candidates.push(decodeURIComponent(segment));
    } catch {
      candidates.push(segment);
    }
  }
  for (const value of url.searchParams.values()) candidates.push(value);
  for (const candidate of candidates) {
    const region = regionSegmentOf(candidate);
    if (!region || region === 'dev' || region === localRegion) continue;
    if ((method === 'GET' || method === 'HEAD') && REDIRECTABLE.test(url.pathname)) return { action: 'redirect', homeRegion: region };
    return { action: 'misdirected', homeRegion: region };
  }
  return { action: 'local' };
}
