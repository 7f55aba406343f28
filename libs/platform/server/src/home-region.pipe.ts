import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { homeRegionOf, isRegion, type ProcessConfig, type Region } from '@svc/config';
import { WrongRegionError } from '@svc/errors';
import { ID_FORMATS, isCrossBorder, regionSegmentOf, routedFieldsOf } from '@svc/ids';

/**
 * Homes a request by the identifiers of its body as the router homes it by those of its path: a
 * field marked with `@RoutedBy` holding another region's identifier (well-formed or not) is
 * answered 421 with `home_country` before validation and before any table is read, so the wrong
 * region never answers 404 from its own empty tables. Runs first of the global pipes.
 *
 * A person's resources are written only in the person's home region: a person identifier
 * (`usr_<region>_…`) of another region anywhere in a body or query (any field, nested objects and
 * arrays included) is answered with the same 421, so nothing of that person is stored here. Only a
 * cross-border lookup (`@CrossBorder`) may name a foreign person.
 */
/** Prefix of a person identifier (`usr_<region>_…`), regional like every resource of the person. */
const PERSON_PREFIX = `${ID_FORMATS.person.prefix}_`;

export class HomeRegionPipe implements PipeTransform {
  constructor(private readonly config: ProcessConfig) {}

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if ((metadata.type === 'body' || metadata.type === 'query' || metadata.type === 'param') && !isCrossBorder(metadata.metatype)) {
      const person = this.foreignPersonRegionIn(value, 0);
      if (person) throw new WrongRegionError(homeRegionOf(this.config, person));
    }
    const fields = routedFieldsOf(metadata.metatype);
    if (fields.length === 0 || typeof value !== 'object' || value === null) return value;
    for (const field of fields) {
      const home = this.foreignRegionOf((value as Record<string, unknown>)[field]);
      if (home) throw new WrongRegionError(homeRegionOf(this.config, home));
    }
    return value;
  }

  /** The region of the first foreign person identifier in `value` (strings, arrays, objects, keys included). */
  private foreignPersonRegionIn(value: unknown, depth: number): Region | undefined {
    if (typeof value === 'string') {
      if (!value.startsWith(PERSON_PREFIX)) return undefined;
      const region = regionSegmentOf(value);
      return isRegion(region) && region !== this.config.REGION ? region : undefined;
    }
    // The body parser refuses nesting deeper than 32 levels; this bound only guards other callers.
    if (typeof value !== 'object' || value === null || depth > 64) return undefined;
    for (const [key, item] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
      const found =
        (typeof key === 'string' ? this.foreignPersonRegionIn(key, depth + 1) : undefined) ?? this.foreignPersonRegionIn(item, depth + 1);
      if (found) return found;
    }
    return undefined;
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
