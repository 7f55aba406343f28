import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { homeRegionOf, isRegion, type ProcessConfig, type Region } from '@svc/config';
import { WrongRegionError } from '@svc/errors';
import { regionSegmentOf, routedFieldsOf } from '@svc/ids';

/**
 * Homes a request by the identifiers of its body as the router homes it by those of its path: a
 * field marked with `@RoutedBy` holding another region's identifier (well-formed or not) is
 * answered 421 with `home_country` before validation and before any table is read, so the wrong
 * region never answers 404 from its own empty tables. Runs first of the global pipes.
 */
export class HomeRegionPipe implements PipeTransform {
  constructor(private readonly config: ProcessConfig) {}

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const fields = routedFieldsOf(metadata.metatype);
    if (fields.length === 0 || typeof value !== 'object' || value === null) return value;
    for (const field of fields) {
      const home = this.foreignRegionOf((value as Record<string, unknown>)[field]);
      if (home) throw new WrongRegionError(homeRegionOf(this.config, home));
    }
    return value;
  }

  private foreignRegionOf(value: unknown): Region | undefined {
    for (const candidate of Array.isArray(value) ? value : [value]) {
      if (typeof candidate !== 'string') continue;
      const region = regionSegmentOf(candidate);
      // `dev` identifiers belong to whichever region runs the development deployment.
      if (isRegion(region) && region !== this.config.REGION) return region;
    }
    return undefined;
  }
}
