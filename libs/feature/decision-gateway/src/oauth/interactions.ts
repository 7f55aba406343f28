import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InteractionDetails, Provider } from 'oidc-provider';
import type { PersonSessions } from '../people/person-sessions.port';
import { OPENID_CREDENTIAL, sameCredential } from './credential-authorization';
import { escapeHtml, fill, page, pageLocale, sendPage, strings } from './oauth-pages';

/** Largest form body of an interaction page (a few hidden fields). */
const MAX_FORM_BYTES = 4_096;

/**
 * The provider's interactions, served as hosted pages at `/oauth/interaction/:uid`:
 * - login: handed to the people feature. A person already signed in on this browser finishes the
 *   login (accountId = the person id, `amr` = their methods, `auth_time` = when they proved it);
 *   otherwise the browser goes to the sign-in page, which returns here.
 * - consent: the scopes the client asks for, allowed or denied by the person.
 */
export class Interactions {
  constructor(
    private readonly provider: Provider,
    private readonly sessions: PersonSessions | null,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse, uid: string, action: string | undefined): Promise<void> {
    const locale = pageLocale(header(req, 'accept-language'));
    let details: InteractionDetails;
    try {
      details = await this.provider.interactionDetails(req, res);
    } catch {
      return this.error(res, locale, 400);
    }
    if (details.uid !== uid) return this.error(res, locale, 400);
    const pageLocaleOf = pageLocale(
      typeof details.params.ui_locales === 'string' ? details.params.ui_locales : undefined,
      header(req, 'accept-language'),
    );

    if (details.prompt.name === 'login') {
      if (req.method !== 'GET') return this.error(res, locale, 405);
      if (!this.sessions)
        return sendPage(
          res,
          503,
          page(pageLocaleOf, strings(pageLocaleOf).error_title, `<p>${escapeHtml(strings(pageLocaleOf).sign_in_unavailable)}</p>`),
        );
      const person = await this.sessions.fromRequest(req);
      if (!person) {
        res.statusCode = 303;
        res.setHeader('location', this.sessions.signInPath(`/oauth/interaction/${uid}`));
        res.setHeader('cache-control', 'no-store');
        res.end();
        return;
      }
      return this.provider.interactionFinished(
        req,
        res,
        {
          login: {
            accountId: person.personId,
            amr: [...person.methods],
            ts: Math.floor(person.authenticatedAt.getTime() / 1000),
            remember: true,
          },
        },
        { mergeWithLastSubmission: false },
      );
    }

    if (details.prompt.name !== 'consent') return this.error(res, locale, 400);
    const accountId = details.session?.accountId;
    const clientId = typeof details.params.client_id === 'string' ? details.params.client_id : '';
    if (!accountId || !clientId) return this.error(res, locale, 400);

    if (action === undefined) {
      if (req.method !== 'GET') return this.error(res, locale, 405);
      return this.consentPage(res, details, pageLocaleOf);
    }
    if (req.method !== 'POST') return this.error(res, locale, 405);
    if (!(await drainForm(req))) return this.error(res, locale, 413);
    if (action === 'abort') {
      return this.provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'The person denied the request' },
        { mergeWithLastSubmission: false },
      );
    }
    const grant =
      (details.grantId ? await this.provider.Grant.find(details.grantId) : undefined) ?? new this.provider.Grant({ accountId, clientId });
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
      rar?: Array<Record<string, unknown>>;
    };
    if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims?.length) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
      grant.addResourceScope(resource, scopes.join(' '));
    // The credentials the wallet asked for (authorization_details), shown on the page and allowed here.
    for (const detail of missing.rar ?? []) if (!grant.rar?.some((granted) => sameCredential(granted, detail))) grant.addRar(detail);
    const grantId = await grant.save();
    return this.provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  private async consentPage(res: ServerResponse, details: InteractionDetails, locale: string): Promise<void> {
    const t = strings(locale);
    const client = await this.provider.Client.find(String(details.params.client_id));
    const scopes = String(details.params.scope ?? '')
      .split(' ')
      .filter(Boolean);
    const credentials = credentialsAskedFor(details.params.authorization_details);
    const items = [
      ...scopes.map((scope) => `<li>${escapeHtml((t as Record<string, string>)[`scope_${scope}`] ?? scope)}</li>`),
      ...credentials.map(
        (detail) =>
          `<li>${escapeHtml((t as Record<string, string>)[`credential_${String(detail.credential_configuration_id)}`] ?? String(detail.credential_configuration_id))}</li>`,
      ),
    ].join('');
    const base = `/oauth/interaction/${encodeURIComponent(details.uid)}`;
    const body = `<p>${escapeHtml(fill(t.consent_intro, { client: client?.clientName ?? '' }))}</p><ul class="purposes">${items}</ul>
<div id="svc-actions"><form method="post" action="${base}/confirm"><button class="primary" type="submit">${escapeHtml(t.allow)}</button></form>
<form method="post" action="${base}/abort"><button class="secondary" type="submit">${escapeHtml(t.deny)}</button></form></div>`;
    const redirect = typeof details.params.redirect_uri === 'string' ? originOf(details.params.redirect_uri) : undefined;
    sendPage(res, 200, page(locale, t.consent_title, body), redirect ? [redirect] : []);
  }

  private error(res: ServerResponse, locale: string, status: number): void {
    const t = strings(locale);
    sendPage(res, status, page(locale, t.error_title, `<p>${escapeHtml(t.error_text)}</p>`));
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The `openid_credential` details of the request (already validated by the provider). */
function credentialsAskedFor(raw: unknown): Array<Record<string, unknown>> {
  if (typeof raw !== 'string') return [];
  try {
    const parsed = JSON.parse(raw) as unknown;
    return Array.isArray(parsed) ? (parsed as Array<Record<string, unknown>>).filter((detail) => detail?.type === OPENID_CREDENTIAL) : [];
  } catch {
    return [];
  }
}

function originOf(uri: string): string | undefined {
  try {
    return new URL(uri).origin;
  } catch {
    return undefined;
  }
}

/** Reads (and discards) a small form body; false when it is too large. */
async function drainForm(req: IncomingMessage): Promise<boolean> {
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) return false;
  }
  return true;
}
