import { Inject, Injectable } from '@nestjs/common';
import { Clock, PlatformConfig } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import type { AuthenticationResponseJSON, AuthenticatorTransport, RegistrationResponseJSON } from '@simplewebauthn/server';
import { GATEWAY_OUTBOX } from '../../tokens';
import { peopleError } from '../people.errors';
import { credentialDigest } from '../people.responses';
import { webAuthnLibrary } from '../webauthn-library';
import { PeopleRepository, type Passkey } from '../people.repository';
import { newSecret, safeReturnTo, type Person } from '../person';
import type { SignedInPerson } from '../person-sessions.port';
import { PersonSessionsService } from '../person-sessions.service';
import { SignInThrottle } from '../sign-in-throttle';

/** Lifetime of a WebAuthn challenge. */
const CHALLENGE_TTL_MS = 5 * 60_000;

/**
 * Passkeys (WebAuthn, @simplewebauthn/server): a signed-in person registers a discoverable
 * credential; anyone may then sign in with it (no username: the authenticator picks the
 * credential). The relying party is this region's public origin (PUBLIC_BASE_URL).
 */
@Injectable()
export class Passkeys {
  private readonly origin: string;
  private readonly rpId: string;

  constructor(
    private readonly people: PeopleRepository,
    private readonly sessions: PersonSessionsService,
    private readonly throttle: SignInThrottle,
    private readonly clock: Clock,
    platform: PlatformConfig,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
  ) {
    const url = new URL(platform.PUBLIC_BASE_URL);
    this.origin = url.origin;
    this.rpId = url.hostname;
  }

  async registrationOptions(person: SignedInPerson): Promise<{ challengeId: string; options: Record<string, unknown> }> {
    const existing = await this.people.listPasskeys(person.personId);
    const options = await (
      await webAuthnLibrary()
    ).generateRegistrationOptions({
      rpName: 'Sign-in',
      rpID: this.rpId,
      userName: person.email,
      userDisplayName: person.displayName,
      userID: new TextEncoder().encode(person.personId),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    const challengeId = newSecret();
    await this.people.insertChallenge(
      challengeId,
      'register',
      person.personId,
      options.challenge,
      '/people/account',
      new Date(this.clock.now().getTime() + CHALLENGE_TTL_MS),
    );
    return { challengeId, options: options as unknown as Record<string, unknown> };
  }

  async register(person: SignedInPerson, challengeId: string, response: Record<string, unknown>): Promise<Passkey> {
    const challenge = await this.people.takeChallenge(challengeId, 'register', this.clock.now());
    if (!challenge || challenge.personId !== person.personId)
      throw peopleError('passkey_invalid', 'The passkey challenge is unknown or expired', { field: 'challenge_id' });
    let verification;
    const { verifyRegistrationResponse } = await webAuthnLibrary();
    try {
      verification = await verifyRegistrationResponse({
        response: response as unknown as RegistrationResponseJSON,
        expectedChallenge: challenge.challenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        requireUserVerification: false,
      });
    } catch {
      throw peopleError('passkey_invalid', 'The passkey could not be verified', { field: 'credential' });
    }
    if (!verification.verified || !verification.registrationInfo)
      throw peopleError('passkey_invalid', 'The passkey could not be verified', { field: 'credential' });
    const info = verification.registrationInfo;
    const now = this.clock.now();
    const passkey: Omit<Passkey, 'lastUsedAt'> = {
      credentialId: info.credential.id,
      personId: person.personId,
      publicKey: Buffer.from(info.credential.publicKey),
      counter: info.credential.counter,
      transports: info.credential.transports ?? [],
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      createdAt: now,
    };
    await this.people.transaction(async (manager) => {
      if (!(await this.people.insertPasskey(manager, passkey)))
        throw peopleError('passkey_invalid', 'This passkey is already registered', { field: 'credential' });
      await this.outbox.add(
        manager,
        'person.passkey_added',
        { personId: person.personId, credentialSha256: credentialDigest(passkey.credentialId), change: 'added' },
        { occurredAt: now },
      );
    });
    return { ...passkey, lastUsedAt: null };
  }

  async remove(person: SignedInPerson, credentialId: string): Promise<void> {
    const now = this.clock.now();
    await this.people.transaction(async (manager) => {
      if (!(await this.people.deletePasskey(manager, person.personId, credentialId)))
        throw peopleError('passkey_not_found', 'No such passkey', { passkey_id: credentialId.slice(0, 100) });
      await this.outbox.add(
        manager,
        'person.passkey_removed',
        { personId: person.personId, credentialSha256: credentialDigest(credentialId), change: 'removed' },
        { occurredAt: now },
      );
    });
  }

  async authenticationOptions(returnTo: string | undefined): Promise<{ challengeId: string; options: Record<string, unknown> }> {
    const options = await (
      await webAuthnLibrary()
    ).generateAuthenticationOptions({ rpID: this.rpId, userVerification: 'preferred', allowCredentials: [] });
    const challengeId = newSecret();
    await this.people.insertChallenge(
      challengeId,
      'authenticate',
      null,
      options.challenge,
      safeReturnTo(returnTo),
      new Date(this.clock.now().getTime() + CHALLENGE_TTL_MS),
    );
    return { challengeId, options: options as unknown as Record<string, unknown> };
  }

  async signIn(
    challengeId: string,
    response: Record<string, unknown> & { id: string },
    ip: string,
  ): Promise<{ person: Person; setCookie: string; returnTo: string }> {
    await this.throttle.assertNotLocked(ip, null);
    const fail = async (): Promise<never> => {
      await this.throttle.countFailure(ip, null, 'passkey', 'passkey_invalid');
      throw peopleError('passkey_invalid', 'The passkey could not be verified', { field: 'credential' });
    };
    const challenge = await this.people.takeChallenge(challengeId, 'authenticate', this.clock.now());
    if (!challenge) return fail();
    const { verifyAuthenticationResponse } = await webAuthnLibrary();
    return (
      (await this.people.transaction(async (manager) => {
        const passkey = await this.people.findPasskey(response.id, manager);
        if (!passkey) return null;
        let verification;
        try {
          verification = await verifyAuthenticationResponse({
            response: response as unknown as AuthenticationResponseJSON,
            expectedChallenge: challenge.challenge,
            expectedOrigin: this.origin,
            expectedRPID: this.rpId,
            credential: {
              id: passkey.credentialId,
              publicKey: new Uint8Array(passkey.publicKey),
              counter: passkey.counter,
              transports: passkey.transports as AuthenticatorTransport[],
            },
            requireUserVerification: false,
          });
        } catch {
          return null;
        }
        if (!verification.verified) return null;
        const now = this.clock.now();
        await this.people.usePasskey(manager, passkey.credentialId, verification.authenticationInfo.newCounter, now);
        const person = await this.people.findPerson(passkey.personId, manager);
        if (!person) return null;
        const setCookie = await this.sessions.start(manager, person.id, ['hwk', 'user']);
        return { person, setCookie, returnTo: challenge.returnTo };
      })) ?? fail()
    );
  }
}
