import { Inject, Injectable } from '@nestjs/common';
import { Clock, PlatformConfig, homeRegionOf } from '@svc/config';
import { WrongRegionError } from '@svc/errors';
import { newRegionalId } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import { GATEWAY_OUTBOX } from '../../tokens';
import { PeopleMailer } from '../mailer';
import { PeopleConfig, personCountries } from '../people.config';
import { peopleError } from '../people.errors';
import { peopleLocale, peopleText } from '../people-i18n';
import { PeopleRepository, type SignUpProfile } from '../people.repository';
import {
  MAX_CODE_ATTEMPTS,
  digestsEqual,
  emailCodeDigest,
  emailCodeKey,
  newEmailCode,
  newSecret,
  normalizeEmail,
  safeReturnTo,
  type Person,
} from '../person';
import { PersonHomeLookup } from '../person-home-lookup';
import { PersonSessionsService } from '../person-sessions.service';
import { SignInThrottle } from '../sign-in-throttle';

export interface StartEmailCodeInput {
  purpose: 'sign_in' | 'sign_up';
  email: string;
  returnTo?: string;
  signUp?: SignUpProfile;
}

/**
 * Sends a one-time code by email. Sign-up: the chosen home country picks the region; another
 * region's country answers 421 naming it, so the page continues there. An address that already
 * has an account gets a sign-in code. A sign-in for an address without an account here asks the
 * other regions (by keyed digest only, {@link PersonHomeLookup}): when one is the person's home,
 * the answer is 421 naming it, so the page continues at the home region's sign-in; otherwise the
 * address gets a note instead of a code, with the same answer as when a code is sent.
 */
@Injectable()
export class StartEmailCode {
  private readonly codeKey: Buffer;

  constructor(
    private readonly people: PeopleRepository,
    private readonly mailer: PeopleMailer,
    private readonly throttle: SignInThrottle,
    private readonly homes: PersonHomeLookup,
    private readonly clock: Clock,
    private readonly platform: PlatformConfig,
    @Inject(PeopleConfig) private readonly config: PeopleConfig,
  ) {
    this.codeKey = emailCodeKey(platform.KEY_ENCRYPTION_KEY, platform.REGION);
  }

  async execute(input: StartEmailCodeInput, ip: string): Promise<{ challengeId: string; expiresAt: Date }> {
    const email = normalizeEmail(input.email);
    if (input.purpose === 'sign_up') this.assertHomedHere(input.signUp);
    await this.throttle.countSend(ip, email);
    const existing = await this.people.findPersonByEmail(email);
    if (!existing && input.purpose === 'sign_in') {
      const home = await this.homes.homeElsewhere(email);
      if (home) throw new WrongRegionError(homeRegionOf(this.platform, home));
    }
    const purpose = existing ? 'sign_in' : input.purpose;
    const now = this.clock.now();
    const challengeId = newSecret();
    const expiresAt = new Date(now.getTime() + this.config.EMAIL_CODE_TTL_SECONDS * 1000);
    const code = newEmailCode();
    const locale = peopleLocale(existing?.locale ?? input.signUp?.locale);
    await this.people.transaction((manager) =>
      this.people
        .insertEmailCode(
          manager,
          {
            id: challengeId,
            purpose,
            email,
            personId: existing?.id ?? null,
            codeDigest: emailCodeDigest(this.codeKey, challengeId, code),
            signUp: purpose === 'sign_up' ? (input.signUp ?? null) : null,
            returnTo: safeReturnTo(input.returnTo),
            expiresAt,
          },
          now,
        )
        .then(() => undefined),
    );
    if (purpose === 'sign_up' || existing) {
      const minutes = Math.round(this.config.EMAIL_CODE_TTL_SECONDS / 60);
      await this.mailer.send({
        to: email,
        subject: peopleText(locale, 'mail_subject', { code }),
        text: peopleText(locale, 'mail_body', { code, minutes }),
      });
    } else {
      const url = `${this.platform.publicBaseUrl}/people/sign-up`;
      await this.mailer.send({
        to: email,
        subject: peopleText(locale, 'mail_no_account_subject'),
        text: peopleText(locale, 'mail_no_account_body', { url }),
      });
    }
    return { challengeId, expiresAt };
  }

  private assertHomedHere(profile: SignUpProfile | undefined): void {
    if (!profile) throw peopleError('home_country_unsupported', 'home_country is required to sign up', { field: 'home_country' });
    const region = personCountries(this.platform, this.config).get(profile.home_country);
    if (!region) throw peopleError('home_country_unsupported', 'This home country cannot be chosen here', { field: 'home_country' });
    if (region !== this.platform.REGION) throw new WrongRegionError(homeRegionOf(this.platform, region));
  }
}

export interface VerifiedSignIn {
  person: Person;
  setCookie: string;
  returnTo: string;
  created: boolean;
}

/**
 * Checks a code: single use, before its expiry, at most {@link MAX_CODE_ATTEMPTS} wrong tries,
 * compared in constant time; failures count against the client and the account (lockout). A
 * sign-up's first good code creates the person with a verified email; a sign-in's verifies the
 * email if it was not. Either way the browser is signed in.
 */
@Injectable()
export class VerifyEmailCode {
  private readonly codeKey: Buffer;

  constructor(
    private readonly people: PeopleRepository,
    private readonly sessions: PersonSessionsService,
    private readonly throttle: SignInThrottle,
    private readonly homes: PersonHomeLookup,
    private readonly clock: Clock,
    private readonly platform: PlatformConfig,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
  ) {
    this.codeKey = emailCodeKey(platform.KEY_ENCRYPTION_KEY, platform.REGION);
  }

  async execute(challengeId: string, code: string, ip: string): Promise<VerifiedSignIn> {
    await this.throttle.assertNotLocked(ip, null);
    const now = this.clock.now();
    const outcome = await this.people.transaction(async (manager) => {
      const challenge = await this.people.lockEmailCode(manager, challengeId);
      if (!challenge || challenge.usedAt || challenge.expiresAt <= now || challenge.failedAttempts >= MAX_CODE_ATTEMPTS)
        return { kind: 'expired' as const, email: challenge?.email ?? null };
      await this.throttle.assertNotLocked(ip, challenge.email);
      const matches = digestsEqual(emailCodeDigest(this.codeKey, challenge.id, code), challenge.codeDigest);
      if (!matches || (challenge.purpose === 'sign_in' && !challenge.personId)) {
        const failed = await this.people.recordCodeFailure(manager, challenge.id);
        return { kind: 'invalid' as const, email: challenge.email, attemptsLeft: Math.max(0, MAX_CODE_ATTEMPTS - failed) };
      }
      await this.people.markCodeUsed(manager, challenge.id, now);
      let person: Person | undefined;
      let created = false;
      if (challenge.purpose === 'sign_up' && challenge.signUp) {
        const profile = challenge.signUp;
        person = await this.people.insertPerson(
          manager,
          {
            id: newRegionalId('person', this.platform.REGION),
            email: challenge.email,
            emailVerifiedAt: now,
            displayName: profile.display_name,
            locale: profile.locale,
            timeZone: profile.time_zone,
            homeCountry: profile.home_country,
          },
          now,
          this.homes.digestOf(challenge.email),
        );
        if (person) {
          created = true;
          await this.outbox.add(manager, 'person.created', { personId: person.id, homeCountry: person.homeCountry }, { occurredAt: now });
          await this.outbox.add(manager, 'person.email_verified', { personId: person.id }, { occurredAt: now });
        } else {
          person = await this.people.findPersonByEmail(challenge.email, manager);
        }
      } else if (challenge.personId) {
        person = await this.people.findPerson(challenge.personId, manager);
        if (person && (await this.people.markEmailVerified(manager, person.id, now))) {
          await this.outbox.add(manager, 'person.email_verified', { personId: person.id }, { occurredAt: now });
        }
      }
      if (!person) return { kind: 'expired' as const, email: challenge.email };
      const setCookie = await this.sessions.start(manager, person.id, ['otp']);
      return { kind: 'ok' as const, result: { person, setCookie, returnTo: challenge.returnTo, created } };
    });
    if (outcome.kind === 'ok') {
      await this.throttle.clearAccount(outcome.result.person.email);
      return outcome.result;
    }
    await this.throttle.countFailure(ip, outcome.email, 'email_code', outcome.kind === 'expired' ? 'code_expired' : 'code_invalid');
    if (outcome.kind === 'expired')
      throw peopleError('email_code_expired', 'This code can no longer be used; ask for a new one', { field: 'challenge_id' });
    throw peopleError('email_code_invalid', 'The code is not right', { field: 'code', attempts_left: outcome.attemptsLeft });
  }
}
