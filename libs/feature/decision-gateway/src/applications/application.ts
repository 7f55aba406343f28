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
