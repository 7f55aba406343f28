import { DomainError, type ErrorEnvelope } from './domain-error';

/** Where a misdirected request's resource lives. */
export interface HomeRegion {
  /** Region segment of the identifier, e.g. `eu`. */
  region: string;
  /** ISO 3166-1 alpha-2 country of that region (spec: Authentication rule 11, Errors). */
  country: string;
  /** Public base URL of that region's router, when known. */
  url?: string;
}

/**
 * 421: the request names a resource homed in another region. The body carries `home_country`
 * (spec, Errors: "an explicit error with field home_country") and, in `detail`, the home region,
 * its country and its router's URL; never anything of the resource itself.
 */
export class WrongRegionError extends DomainError {
  constructor(
    readonly home: HomeRegion,
    code = 'wrong_region',
  ) {
    super('misdirected', code, `This resource is homed in region ${home.region} (${home.country}); send the request to that region`, {
      home_region: home.region,
      home_country: home.country,
      ...(home.url ? { home_region_url: home.url } : {}),
    });
  }

  override toEnvelope(): ErrorEnvelope & { home_country: string } {
    return { ...super.toEnvelope(), home_country: this.home.country };
  }
}
