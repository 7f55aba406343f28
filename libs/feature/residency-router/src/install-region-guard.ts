import type { FastifyInstance } from 'fastify';
import { regionVerdict } from './region-guard';

const GRANT_REFRESH = /^\/api\/v1\/grants\/[^/]+\/attestation$/;

export interface RegionGuardOptions {
  region: string;
  /** Public base URL of each region's router. */
  regionUrls: Readonly<Record<string, string>>;
}

/**
 * Installs the residency check as the first hook of the region's ingress: a foreign identifier
 * gets 421 naming its home region (and no resource data), or 307 for a cacheable public document.
 */
export function installRegionGuard(fastify: FastifyInstance, options: RegionGuardOptions): void {
  fastify.addHook('onRequest', async (request, reply) => {
    const verdict = regionVerdict(request.method, request.url, options.region);
    if (verdict.action === 'local') return;
    const homeUrl = options.regionUrls[verdict.homeRegion];
    if (verdict.action === 'redirect' && homeUrl) {
      return reply
        .status(307)
        .header('location', `${homeUrl}${request.url}`)
        .header('cache-control', 'public, max-age=86400')
        .send();
    }
    const path = request.url.split('?', 1)[0] ?? '';
    return reply
      .status(421)
      .header('cache-control', 'no-store')
      .send({
        message: `This resource is homed in region ${verdict.homeRegion}; send the request to that region`,
        // The spec names its own code for an attestation refresh that reached the wrong region.
        reason_code: GRANT_REFRESH.test(path) ? 'grant_region_mismatch' : 'wrong_region',
        detail: { home_region: verdict.homeRegion, ...(homeUrl ? { home_region_url: homeUrl } : {}) },
      });
  });
}
