import { homeRegionOf, isRegion, type ProcessConfig } from '@svc/config';
import { WrongRegionError } from '@svc/errors';
import type { FastifyInstance } from 'fastify';
import { regionVerdict } from './region-guard';

const GRANT_REFRESH = /^\/api\/v1\/grants\/[^/]+\/attestation$/;

export type RegionGuardOptions = Pick<ProcessConfig, 'REGION' | 'REGION_URLS' | 'REGION_COUNTRIES'>;

/**
 * Installs the residency check as the first hook of the region's ingress: a foreign identifier
 * gets 421 naming its home region and country (and no resource data), or 307 for a cacheable
 * public document. Identifiers in request bodies are homed by `HomeRegionPipe` once parsed.
 */
export function installRegionGuard(fastify: FastifyInstance, config: RegionGuardOptions): void {
  // Callback style: it runs on every request, and an async hook costs a promise each time.
  fastify.addHook('onRequest', (request, reply, done) => {
    const verdict = regionVerdict(request.method, request.url, config.REGION);
    if (verdict.action === 'local' || !isRegion(verdict.homeRegion)) return done();
    const home = homeRegionOf(config, verdict.homeRegion);
    if (verdict.action === 'redirect' && home.url) {
      void reply.status(307).header('location', `${home.url}${request.url}`).header('cache-control', 'public, max-age=86400').send();
      return;
    }
    const path = request.url.split('?', 1)[0] ?? '';
    // The spec names its own code for an attestation refresh that reached the wrong region.
    const error = new WrongRegionError(home, GRANT_REFRESH.test(path) ? 'grant_region_mismatch' : 'wrong_region');
    void reply.status(421).header('cache-control', 'no-store').send(error.toEnvelope());
  });
}
