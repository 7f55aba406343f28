import { Writable } from 'node:stream';
import * as oidc from 'openid-client';
import { createLogger } from '@svc/telemetry';
import { http } from '@svc/testing';
import { codeFor, mailsTo, startMailDev, type MailDev } from '../support/mail';
import { startRegions, type TestRegions } from '../support/regions';

export interface OAuthRegion {
  url: string;
  stack: TestRegions;
  mail: MailDev;
  /** Every log line the region wrote (debug and up). */
  logLines: string[];
  close(): Promise<void>;
}

/** Boots the us region (monolithic) with a real SMTP sink for sign-in codes, capturing its log lines. */
export async function startOAuthRegion(label: string): Promise<OAuthRegion> {
  const logLines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line.length > 0),
      );
      done();
    },
  });
  const mail = await startMailDev();
  try {
    const stack = await startRegions(label, {
      regions: ['us'],
      logger: createLogger({ service: 'e2e-oauth', region: 'us', level: 'debug', destination }),
      env: { SMTP_URL: mail.smtpUrl, MAIL_FROM: 'Sign-in <no-reply@example.test>' },
    });
    return {
      url: stack.url.us,
      stack,
      mail,
      logLines,
      close: async () => {
        await stack.close();
        await mail.stop();
      },
    };
  } catch (error) {
    await mail.stop();
    throw error;
  }
}

/**
 * Signs a person up through the people feature (email code read from the SMTP sink); returns the
 * person id and the browser's sign-in cookie (`name=value`).
 */
export async function signUp(
  region: OAuthRegion,
  person: { email: string; name: string; locale: string; timeZone: string; homeCountry: string },
): Promise<{ personId: string; cookie: string }> {
  const start = await http('POST', `${region.url}/people/email_codes`, {
    json: {
      purpose: 'sign_up',
      email: person.email,
      display_name: person.name,
      home_country: person.homeCountry,
      locale: person.locale,
      time_zone: person.timeZone,
      return_to: '/people/account',
    },
  });
  if (start.status !== 202) throw new Error(`sign-up start answered ${start.status}`);
  const code = await codeFor(region.mail, person.email, (await mailsTo(region.mail, person.email)).length || 1);
  const verified = await http('POST', `${region.url}/people/email_codes/verify`, { json: { challenge_id: start.body.challenge_id, code } });
  if (verified.status !== 200) throw new Error(`sign-up verify answered ${verified.status}`);
  return { personId: (verified.body.person as { id: string }).id, cookie: (verified.headers.get('set-cookie') ?? '').split(';')[0] ?? '' };
}

/** A minimal cookie jar for driving the provider's redirects with fetch. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  /** Adds a `name=value` pair. */
  add(pair: string): void {
    const separator = pair.indexOf('=');
    if (separator > 0) this.cookies.set(pair.slice(0, separator), pair.slice(separator + 1));
  }

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const separator = pair?.indexOf('=') ?? -1;
      if (!pair || separator < 1) continue;
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || /max-age=0/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/**
 * Follows the provider's redirects as the person's browser until `redirectUri`, confirming the
 * consent page when it is shown; answers the callback URL.
 */
export async function browseToRedirect(baseUrl: string, start: string, jar: CookieJar, redirectUri: string): Promise<string> {
  let url = start;
  for (let hop = 0; hop < 12; hop++) {
    if (url.startsWith(redirectUri)) return url;
    const res = await fetch(new URL(url, baseUrl), { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.store(res);
    const location = res.headers.get('location');
    if (location) {
      url = location;
      continue;
    }
    const html = await res.text();
    const action = /<form method="post" action="([^"]+\/confirm)"/.exec(html)?.[1];
    if (res.status !== 200 || !action) throw new Error(`unexpected ${res.status} at ${new URL(url, baseUrl).pathname}`);
    const post = await fetch(new URL(action, baseUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    jar.store(post);
    url = post.headers.get('location') ?? '';
  }
  throw new Error('too many redirects');
}

/** Signs a US person up and runs the authorization code flow (PAR, PKCE) with openid-client for their access token. */
export async function personWithAccessToken(
  region: OAuthRegion,
  client: oidc.Configuration,
  redirectUri: string,
  who: { email: string; name: string; homeCountry?: string },
  scope = 'openid profile',
): Promise<{ id: string; cookie: string; token: string }> {
  const signed = await signUp(region, { locale: 'en-GB', timeZone: 'Europe/London', homeCountry: 'US', ...who });
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = await oidc.buildAuthorizationUrlWithPAR(client, {
    redirect_uri: redirectUri,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    prompt: 'consent',
  });
  const jar = new CookieJar();
  jar.add(signed.cookie);
  const callback = await browseToRedirect(region.url, url.href, jar, redirectUri);
  const tokens = await oidc.authorizationCodeGrant(client, new URL(callback), { pkceCodeVerifier: verifier, expectedState: state });
  return { id: signed.personId, cookie: signed.cookie, token: tokens.access_token };
}
