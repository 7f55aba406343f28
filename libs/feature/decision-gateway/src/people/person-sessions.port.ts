import type { IncomingMessage } from 'node:http';

/** What the rest of decision-gateway may know of a signed-in person (never a secret). */
export interface SignedInPerson {
  /** `usr_<region>_…`, homed in this region. */
  readonly personId: string;
  readonly email: string;
  readonly emailVerified: boolean;
  readonly displayName: string;
  /** BCP 47 tag, e.g. `fr-FR`. */
  readonly locale: string;
  /** IANA time zone, e.g. `Europe/Paris`. */
  readonly timeZone: string;
  /** ISO 3166-1 alpha-2. */
  readonly homeCountry: string;
  /** When the person last proved who they are on this browser. */
  readonly authenticatedAt: Date;
  /** RFC 8176 methods of that proof: `otp` (email code), `hwk`/`user` (passkey). */
  readonly methods: readonly string[];
}

/**
 * Port between the people feature (accounts, email codes, passkeys, the browser's sign-in cookie)
 * and what needs a signed-in person: the OpenID provider's interactions, the hosted decision pages,
 * the person's inbox. Identity comes only from a sign-in the server verified, never from a request
 * body or a query parameter.
 */
export interface PersonSessions {
  /** The person signed in on the browser that sent this request, or null. */
  fromRequest(request: IncomingMessage): Promise<SignedInPerson | null>;
  /** Path of the hosted sign-in page that returns to `returnTo` (a same-origin path) afterwards. */
  signInPath(returnTo: string): string;
}

/** Reads people by id (claims for ID tokens and `userinfo`; `GET /api/v1/me`). */
export interface PersonDirectory {
  findById(personId: string): Promise<Omit<SignedInPerson, 'authenticatedAt' | 'methods'> | null>;
  /** The applications that linked one of their subject references to the person, first link first. */
  linkedApplications(personId: string): Promise<LinkedApplication[]>;
}

/** An application linked to a person: when its first link to the person was made. */
export interface LinkedApplication {
  readonly applicationId: string;
  readonly name: string;
  readonly linkedAt: Date;
}

/** Injection tokens of the two ports (provided by the people module). */
export const PERSON_SESSIONS = Symbol('PERSON_SESSIONS');
export const PERSON_DIRECTORY = Symbol('PERSON_DIRECTORY');
