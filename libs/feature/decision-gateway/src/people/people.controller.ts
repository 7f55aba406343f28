import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { Public } from '@svc/auth';
import { PlatformConfig } from '@svc/config';
import { ApiDoc, ApiResponseOf, clientAddress } from '@svc/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { assertSameOrigin } from './same-origin';
import { contentSecurityPolicy, newNonce, sendHtml } from '../hosted/page-security';
import { PeopleConfig, personCountries } from './people.config';
import { PasskeyCeremonyBody, PasskeyOptionsBody, StartEmailCodeBody, VerifyEmailCodeBody } from './people.dto';
import { peopleError } from './people.errors';
import { peopleLocale } from './people-i18n';
import { renderAccountPage, renderSignInPage, renderSignUpPage, type PeoplePageModel } from './people-pages';
import { PeopleRepository } from './people.repository';
import {
  AccountResponse,
  EmailCodeChallengeResponse,
  PasskeyEnvelopeResponse,
  PasskeyOptionsResponse,
  SignedInResponse,
  passkeyView,
  personLinkView,
  personView,
} from './people.responses';
import { safeReturnTo } from './person';
import type { SignedInPerson } from './person-sessions.port';
import { PersonSessionsService } from './person-sessions.service';
import { StartEmailCode, VerifyEmailCode } from './use-cases/email-codes.use-case';
import { Passkeys } from './use-cases/passkeys.use-case';
import { PersonLinks } from './use-cases/person-links.use-case';
import { WEBAUTHN_BUNDLE, WEBAUTHN_INTEGRITY } from './webauthn-asset';

type QueryValue = string | string[] | undefined;

/**
 * The person's side: hosted sign-up, sign-in (email code, passkey) and account pages, and the
 * JSON calls those pages make. Cookie-authenticated calls refuse a foreign `Origin` (and a
 * cross-site `Sec-Fetch-Site`); the cookie is SameSite=Lax and bodies must be JSON, so a
 * cross-site form cannot drive them.
 */
@Controller('people')
export class PeopleController {
  private readonly origin: string;

  constructor(
    private readonly sessions: PersonSessionsService,
    private readonly people: PeopleRepository,
    private readonly startCode: StartEmailCode,
    private readonly verifyCode: VerifyEmailCode,
    private readonly passkeys: Passkeys,
    private readonly links: PersonLinks,
    private readonly platform: PlatformConfig,
    @Inject(PeopleConfig) private readonly config: PeopleConfig,
  ) {
    this.origin = new URL(platform.PUBLIC_BASE_URL).origin;
  }

  @Get('sign-in')
  @Public()
  @ApiDoc({
    tag: 'People',
    summary: 'Hosted sign-in page (HTML): passkey or email code; query return_to (same-origin path)',
    response: 'The sign-in page',
    produces: 'text/html',
  })
  signInPage(@Req() request: FastifyRequest, @Query('return_to') returnTo: QueryValue, @Res() reply: FastifyReply): FastifyReply {
    const model = this.pageModel(request, returnTo);
    return sendHtml(reply, 200, renderSignInPage(model), contentSecurityPolicy(model.nonce, []));
  }

  @Get('sign-up')
  @Public()
  @ApiDoc({
    tag: 'People',
    summary: 'Hosted sign-up page (HTML): name, email, home country; query return_to, country',
    response: 'The sign-up page',
    produces: 'text/html',
  })
  signUpPage(
    @Req() request: FastifyRequest,
    @Query('return_to') returnTo: QueryValue,
    @Query('country') country: QueryValue,
    @Res() reply: FastifyReply,
  ): FastifyReply {
    const model = this.pageModel(request, returnTo);
    const countries = [...personCountries(this.platform, this.config).keys()];
    const html = renderSignUpPage({
      ...model,
      countries,
      prefill: typeof country === 'string' && /^[A-Z]{2}$/.test(country) ? { country } : {},
    });
    return sendHtml(reply, 200, html, contentSecurityPolicy(model.nonce, []));
  }

  @Get('account')
  @Public()
  @ApiDoc({
    tag: 'People',
    summary: 'Hosted account page (HTML): profile, passkeys, application links; 303 to sign-in when signed out',
    response: 'The account page',
    produces: 'text/html',
  })
  async accountPage(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const person = await this.sessions.fromRequest(request.raw);
    if (!person)
      return reply.code(303).header('location', this.sessions.signInPath('/people/account')).header('cache-control', 'no-store').send();
    const model = this.pageModel(request, undefined, person.locale);
    const [passkeys, links] = await Promise.all([
      this.people.listPasskeys(person.personId),
      this.people.listLinksOfPerson(person.personId),
    ]);
    const html = renderAccountPage({
      ...model,
      person: { displayName: person.displayName, email: person.email, homeCountry: person.homeCountry },
      passkeys: passkeys.map((p) => ({ id: p.credentialId, createdAt: p.createdAt })),
      links: links.map((l) => ({
        id: l.id,
        applicationName: l.applicationName ?? l.applicationId,
        kind: l.subjectKind,
        value: l.subjectValue,
      })),
    });
    return sendHtml(reply, 200, html, contentSecurityPolicy(model.nonce, []));
  }

  @Get('assets/webauthn.js')
  @Public()
  @ApiDoc({
    tag: 'People',
    summary: 'WebAuthn browser library of the people pages (script, SRI-pinned)',
    response: 'The WebAuthn browser library',
    produces: 'text/javascript',
  })
  webauthn(@Res() reply: FastifyReply): FastifyReply {
    return reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=86400')
      .header('cross-origin-resource-policy', 'same-origin')
      .header('x-content-type-options', 'nosniff')
      .send(WEBAUTHN_BUNDLE);
  }

  /** 202 always (whether or not the address has an account); 421 when the chosen country is homed elsewhere. */
  @Post('email_codes')
  @Public()
  @HttpCode(202)
  @ApiResponseOf(EmailCodeChallengeResponse, { status: 202 })
  @ApiDoc({ tag: 'People', summary: 'Email a one-time code to sign in or sign up', errors: [400, 403, 415, 421, 422, 429, 503] })
  async startEmailCode(@Req() request: FastifyRequest, @Body() body: StartEmailCodeBody): Promise<EmailCodeChallengeResponse> {
    assertSameOrigin(request, this.origin);
    if (body.purpose === 'sign_up') {
      if (body.display_name === undefined || body.display_name.trim() === '')
        throw peopleError('home_country_unsupported', 'display_name is required to sign up', { field: 'display_name' });
      if (body.home_country === undefined)
        throw peopleError('home_country_unsupported', 'home_country is required to sign up', { field: 'home_country' });
    }
    const timeZone = body.time_zone !== undefined && isTimeZone(body.time_zone) ? body.time_zone : 'UTC';
    const { challengeId, expiresAt } = await this.startCode.execute(
      {
        purpose: body.purpose,
        email: body.email,
        returnTo: body.return_to,
        ...(body.purpose === 'sign_up'
          ? {
              signUp: {
                display_name: body.display_name!.trim(),
                home_country: body.home_country!,
                locale: body.locale ?? 'en',
                time_zone: timeZone,
              },
            }
          : {}),
      },
      clientAddress(request),
    );
    return { challenge_id: challengeId, expires_at: expiresAt.toISOString() };
  }

  @Post('email_codes/verify')
  @Public()
  @HttpCode(200)
  @ApiResponseOf(SignedInResponse)
  @ApiDoc({ tag: 'People', summary: 'Verify an email code; signs the browser in (Set-Cookie)', errors: [400, 401, 403, 410, 415, 429] })
  async verifyEmailCode(
    @Req() request: FastifyRequest,
    @Body() body: VerifyEmailCodeBody,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SignedInResponse> {
    assertSameOrigin(request, this.origin);
    const result = await this.verifyCode.execute(body.challenge_id, body.code, clientAddress(request));
    void reply.header('set-cookie', result.setCookie).header('cache-control', 'no-store');
    return { person: personView(result.person), return_to: result.returnTo };
  }

  @Post('sign_out')
  @Public()
  @HttpCode(204)
  @ApiDoc({ tag: 'People', summary: 'Sign this browser out', response: '204', errors: [403] })
  async signOut(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    assertSameOrigin(request, this.origin);
    void reply.header('set-cookie', await this.sessions.signOut(request.raw));
  }

  @Get('me')
  @Public()
  @ApiResponseOf(AccountResponse)
  @ApiDoc({ tag: 'People', summary: 'The signed-in person, their passkeys and application links', errors: [401] })
  async me(@Req() request: FastifyRequest): Promise<AccountResponse> {
    const person = await this.signedIn(request);
    const full = await this.people.findPerson(person.personId);
    if (!full) throw peopleError('sign_in_required', 'Sign in first');
    const [passkeys, links] = await Promise.all([
      this.people.listPasskeys(person.personId),
      this.people.listLinksOfPerson(person.personId),
    ]);
    return {
      person: personView(full),
      passkeys: passkeys.map(passkeyView),
      links: links.map((l) => ({ ...personLinkView(l), application_name: l.applicationName ?? '' })),
      passkey_count: passkeys.length,
    };
  }

  @Post('passkeys/registration_options')
  @Public()
  @HttpCode(200)
  @ApiResponseOf(PasskeyOptionsResponse)
  @ApiDoc({ tag: 'People', summary: 'WebAuthn creation options to add a passkey (signed in)', errors: [401, 403] })
  async registrationOptions(@Req() request: FastifyRequest): Promise<PasskeyOptionsResponse> {
    assertSameOrigin(request, this.origin);
    const { challengeId, options } = await this.passkeys.registrationOptions(await this.signedIn(request));
    return { challenge_id: challengeId, options };
  }

  @Post('passkeys')
  @Public()
  @HttpCode(201)
  @ApiResponseOf(PasskeyEnvelopeResponse, { status: 201 })
  @ApiDoc({ tag: 'People', summary: 'Add a passkey: the WebAuthn registration response (signed in)', errors: [400, 401, 403, 415] })
  async addPasskey(@Req() request: FastifyRequest, @Body() body: PasskeyCeremonyBody): Promise<PasskeyEnvelopeResponse> {
    assertSameOrigin(request, this.origin);
    const passkey = await this.passkeys.register(
      await this.signedIn(request),
      body.challenge_id,
      body.credential as unknown as Record<string, unknown>,
    );
    return { passkey: passkeyView(passkey) };
  }

  @Get('passkeys')
  @Public()
  @ApiResponseOf(PasskeyEnvelopeResponse, { isArray: true })
  @ApiDoc({ tag: 'People', summary: "The signed-in person's passkeys", errors: [401] })
  async listPasskeys(@Req() request: FastifyRequest): Promise<PasskeyEnvelopeResponse[]> {
    const person = await this.signedIn(request);
    return (await this.people.listPasskeys(person.personId)).map((p) => ({ passkey: passkeyView(p) }));
  }

  @Delete('passkeys/:passkey_id')
  @Public()
  @HttpCode(204)
  @ApiDoc({ tag: 'People', summary: "Remove one of the signed-in person's passkeys", response: '204', errors: [401, 403, 404] })
  async removePasskey(@Req() request: FastifyRequest, @Param('passkey_id') passkeyId: string): Promise<void> {
    assertSameOrigin(request, this.origin);
    await this.passkeys.remove(await this.signedIn(request), passkeyId);
  }

  @Post('passkeys/authentication_options')
  @Public()
  @HttpCode(200)
  @ApiResponseOf(PasskeyOptionsResponse)
  @ApiDoc({
    tag: 'People',
    summary: 'WebAuthn request options to sign in with a passkey (discoverable credential)',
    errors: [400, 403, 415],
  })
  async authenticationOptions(@Req() request: FastifyRequest, @Body() body: PasskeyOptionsBody): Promise<PasskeyOptionsResponse> {
    assertSameOrigin(request, this.origin);
    const { challengeId, options } = await this.passkeys.authenticationOptions(body.return_to);
    return { challenge_id: challengeId, options };
  }

  @Post('passkeys/sign_in')
  @Public()
  @HttpCode(200)
  @ApiResponseOf(SignedInResponse)
  @ApiDoc({
    tag: 'People',
    summary: 'Sign in with a passkey: the WebAuthn authentication response (Set-Cookie)',
    errors: [400, 401, 403, 415, 429],
  })
  async passkeySignIn(
    @Req() request: FastifyRequest,
    @Body() body: PasskeyCeremonyBody,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SignedInResponse> {
    assertSameOrigin(request, this.origin);
    const result = await this.passkeys.signIn(
      body.challenge_id,
      body.credential as unknown as Record<string, unknown> & { id: string },
      clientAddress(request),
    );
    void reply.header('set-cookie', result.setCookie).header('cache-control', 'no-store');
    return { person: personView(result.person), return_to: result.returnTo };
  }

  @Delete('links/:person_link_id')
  @Public()
  @HttpCode(204)
  @ApiDoc({ tag: 'People', summary: "Remove an application's link to the signed-in person", response: '204', errors: [401, 403, 404] })
  async removeLink(@Req() request: FastifyRequest, @Param('person_link_id') linkId: string): Promise<void> {
    assertSameOrigin(request, this.origin);
    await this.links.removeOwn((await this.signedIn(request)).personId, linkId);
  }

  private async signedIn(request: FastifyRequest): Promise<SignedInPerson> {
    const person = await this.sessions.fromRequest(request.raw);
    if (!person) throw peopleError('sign_in_required', 'Sign in first', { sign_in_url: this.sessions.signInPath('/people/account') });
    return person;
  }

  private pageModel(request: FastifyRequest, returnTo: QueryValue, locale?: string): PeoplePageModel {
    return {
      locale: peopleLocale(locale ?? request.headers['accept-language']),
      nonce: newNonce(),
      webauthnIntegrity: WEBAUTHN_INTEGRITY,
      returnTo: safeReturnTo(typeof returnTo === 'string' ? returnTo : undefined),
    };
  }
}

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
