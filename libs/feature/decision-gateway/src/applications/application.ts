import type { ApplicationResponse } from './application.response';

/** Application modes (spec: Application `mode`). */
export const APPLICATION_MODES = ['conductor', 'oversight', 'hybrid'] as const;
export type ApplicationMode = (typeof APPLICATION_MODES)[number];

export const ENVIRONMENTS = ['development', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** An application as stored. */
export interface Application {
  id: string;
  name: string;
  environment: Environment;
  mode: ApplicationMode;
  capabilitiesPublished: boolean;
  region: string;
  /** Logo of the hosted pages: absolute https URL, or null. */
  logoUrl: string | null;
  /** Brand colour of the hosted pages: `#rrggbb`, or null. */
  brandColor: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The application's wire shape: the spec's generic resource fields plus its settings. */
export function applicationView(app: Application, publishableKey?: string): Record<string, unknown> {
  return {
    id: app.id,
    object: 'application',
    name: app.name,
    environment: app.environment,
    created_at: app.createdAt.toISOString(),
    mode: app.mode,
    capabilities_published: app.capabilitiesPublished,
    region: app.region,
    logo_url: app.logoUrl,
    brand_color: app.brandColor,
    ...(publishableKey ? { publishable_key: publishableKey } : {}),
  } satisfies ApplicationResponse;
}
