import { regionSegmentOf } from '@svc/ids';

export type RegionVerdict =
  { action: 'local' } | { action: 'misdirected'; homeRegion: string } | { action: 'redirect'; homeRegion: string };

const LOCAL: RegionVerdict = Object.freeze({ action: 'local' });

/** Public, cacheable documents a foreign router redirects (307) to the home region instead of refusing. */
const REDIRECTABLE = /^\/api\/v1\/agents\/[^/]+\/capabilities$/;

/**
 * Decides whether a request belongs to this region. Every path segment and query value is read
 * for a regional identifier (`tp_eu_…`, `agent_ap_…`); one homed elsewhere is never served or
 * proxied here. `dev` segments belong to whichever region runs the development deployment.
 */
export function regionVerdict(method: string, rawUrl: string, localRegion: string): RegionVerdict {
  if (PLAIN_PATH.test(rawUrl) && !DOT_SEGMENT.test(rawUrl)) {
    // Every regional identifier has an underscore: only the segments with one are read.
    let start = 0;
    let underscore = rawUrl.indexOf('_');
    while (underscore >= 0) {
      let end = rawUrl.indexOf('/', start);
      while (end >= 0 && end < underscore) {
        start = end + 1;
        end = rawUrl.indexOf('/', start);
      }
      if (end < 0) end = rawUrl.length;
      const verdict = verdictOfCandidate(method, rawUrl, rawUrl.slice(start, end), localRegion);
      if (verdict) return verdict;
      start = end + 1;
      underscore = rawUrl.indexOf('_', start);
    }
    return LOCAL;
  }
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
  return verdictOf(method, url.pathname, candidates, localRegion);
}

/**
 * A path the URL parser leaves as it is: no query, fragment, percent-encoding, dot segment or
 * leading `//`, only unreserved characters. Its segments are read without parsing it (the guard
 * runs on every request, public reads answered from memory included).
 */
const PLAIN_PATH = /^\/(?!\/)[\w.~/-]*$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

function verdictOf(method: string, pathname: string, candidates: readonly string[], localRegion: string): RegionVerdict {
  for (const candidate of candidates) {
    const verdict = verdictOfCandidate(method, pathname, candidate, localRegion);
    if (verdict) return verdict;
  }
  return LOCAL;
}

/** The verdict a foreign identifier in `candidate` asks for, or undefined when it names none. */
function verdictOfCandidate(method: string, pathname: string, candidate: string, localRegion: string): RegionVerdict | undefined {
  if (!candidate) return undefined;
  const region = regionSegmentOf(candidate);
  if (!region || region === 'dev' || region === localRegion) return undefined;
  if ((method === 'GET' || method === 'HEAD') && REDIRECTABLE.test(pathname)) return { action: 'redirect', homeRegion: region };
  return { action: 'misdirected', homeRegion: region };
}
