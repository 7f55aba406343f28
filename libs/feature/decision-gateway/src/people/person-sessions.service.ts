import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { Clock, PlatformConfig } from '@svc/config';
import type { EntityManager } from 'typeorm';
import { PeopleConfig } from './people.config';
import { PeopleRepository } from './people.repository';
import type { LinkedApplication, PersonDirectory, PersonSessions, SignedInPerson } from './person-sessions.port';
import { cookieOf, directoryView, newSecret, sessionCookie, sessionCookieName, sha256Hex } from './person';

/**
 * The browser's sign-in: an opaque random cookie (HttpOnly, SameSite=Lax, Secure and `__Host-`
 * over https), stored as its SHA-256 digest with the person, the methods and the time of the
 * proof. Implements the two ports the OpenID provider and the hosted pages use.
 */
@Injectable()
export class PersonSessionsService implements PersonSessions, PersonDirectory {
  readonly secure: boolean;

  constructor(
    private readonly people: PeopleRepository,
    private readonly clock: Clock,
    private readonly platform: PlatformConfig,
    @Inject(PeopleConfig) private readonly config: PeopleConfig,
  ) {
    this.secure = new URL(platform.PUBLIC_BASE_URL).protocol === 'https:';
  }

  async fromRequest(request: IncomingMessage): Promise<SignedInPerson | null> {
    const value = cookieOf(request, sessionCookieName(this.secure));
    if (!value || !/^[A-Za-z0-9_-]{43}$/.test(value)) return null;
    const found = await this.people.findSession(sha256Hex(value), this.clock.now());
    if (!found) return null;
    return { ...directoryView(found.person), authenticatedAt: found.authenticatedAt, methods: found.methods };
  }

  signInPath(returnTo: string): string {
    return `/people/sign-in?return_to=${encodeURIComponent(returnTo)}`;
  }

  async findById(personId: string): Promise<Omit<SignedInPerson, 'authenticatedAt' | 'methods'> | null> {
    const person = await this.people.findPerson(personId);
    return person ? directoryView(person) : null;
  }

  async linkedApplications(personId: string): Promise<LinkedApplication[]> {
    const byApplication = new Map<string, LinkedApplication>();
    for (const link of await this.people.listLinksOfPerson(personId)) {
      // Links come oldest first: the first link of an application is when it was linked.
      if (!byApplication.has(link.applicationId)) {
        byApplication.set(link.applicationId, {
          applicationId: link.applicationId,
          name: link.applicationName ?? '',
          linkedAt: link.createdAt,
        });
      }
    }
    return [...byApplication.values()];
  }

  /** Starts a browser sign-in inside the caller's transaction; returns the `Set-Cookie` value. */
  async start(manager: EntityManager, personId: string, methods: string[]): Promise<string> {
    const value = newSecret();
    const now = this.clock.now();
    await this.people.insertSession(
      manager,
      sha256Hex(value),
      personId,
      methods,
      now,
      new Date(now.getTime() + this.config.PERSON_SESSION_TTL_SECONDS * 1000),
    );
    return sessionCookie(this.secure, value, this.config.PERSON_SESSION_TTL_SECONDS);
  }

  /** Ends this browser's sign-in; returns the `Set-Cookie` that removes the cookie. */
  async signOut(request: IncomingMessage): Promise<string> {
    const value = cookieOf(request, sessionCookieName(this.secure));
    if (value) await this.people.revokeSession(sha256Hex(value), this.clock.now());
    return sessionCookie(this.secure, null, 0);
  }
}
