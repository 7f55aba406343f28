import { Nullable } from '@svc/server';
import { IsIn, IsInt, IsString } from 'class-validator';
import type { DirectoryEntry } from './directory.repository';

/**
 * Minimized status of one person at one application for one purpose: what crosses regions
 * (spec: "What the service does" 7): an opaque identifier, a status, a count and display initials.
 */
export class CrossBorderStatusResponse {
  @IsIn(['cross_border_status']) object!: 'cross_border_status';
  /** Keyed hash of the application and the person's reference (hex); not the person's id. */
  @IsString() subject_ref!: string;
  @IsString() application_id!: string;
  @IsString() purpose!: string;
  /** `active`: the person's current records grant the purpose; `inactive`: they do not; `unknown`: the directory holds no status of the person at the application. */
  @IsIn(['active', 'inactive', 'unknown']) status!: 'active' | 'inactive' | 'unknown';
  /** Purposes currently active for the person at the application. */
  @IsInt() active_count!: number;
  /** Display initials (at most two letters), or empty. */
  @IsString() initials!: string;
  /** ISO 3166-1 alpha-2 country the person's records are homed in; null when unknown. */
  @IsString() @Nullable() home_country!: string | null;
  /** When the home region computed this status; null when unknown. */
  @IsString() @Nullable() as_of!: string | null;
}

export function crossBorderStatusView(
  subjectRef: string,
  applicationId: string,
  purpose: string,
  entry: DirectoryEntry | undefined,
): CrossBorderStatusResponse {
  const own = entry?.purposes.find((p) => p.purpose === purpose);
  return {
    object: 'cross_border_status',
    subject_ref: subjectRef,
    application_id: applicationId,
    purpose,
    status: !entry ? 'unknown' : own?.status === 'active' ? 'active' : 'inactive',
    active_count: entry?.activeCount ?? 0,
    initials: entry?.initials ?? '',
    home_country: entry?.homeCountry ?? null,
    as_of: entry?.asOf.toISOString() ?? null,
  } satisfies CrossBorderStatusResponse;
}
