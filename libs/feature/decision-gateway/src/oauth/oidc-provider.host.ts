import { hkdfSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AccessTokenResolver, type ResolvedCredential } from '@svc/auth';
import { RpcClient } from '@svc/bus';
import { Clock, PlatformConfig } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import { JoseKeyStore, SigningKeyStore, type PrivateSigningJwk } from '@svc/key-store';
import type { OutboxWriter } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import type { FastifyInstance } from 'fastify';
import type { Provider } from 'oidc-provider';
import { DataSource } from 'typeorm';
import { ApplicationsRepository } from '../applications/applications.repository';
import { PERSON_DIRECTORY, PERSON_SESSIONS, type PersonDirectory, type PersonSessions } from '../people/person-sessions.port';
import { DeviceGuards } from './device-guards';
import { Interactions } from './interactions';
import { OAuthConfig } from './oauth.config';
import { OAuthClientsRepository } from './oauth-clients.repository';
import { escapeHtml, page, pageHeaders, pageLocale, sendPage, strings } from './oauth-pages';
import { DELEGATION_SUBJECTS, type DelegationSubjects } from './delegation-subjects.port';
import { OAUTH_SCOPES, TOKEN_EXCHANGE_GRANT } from './oauth-scopes';
import { TOKEN_EXCHANGE_PARAMETERS, TOKEN_EXCHANGE_PATH, tokenExchangeGrant } from './token-exchange.grant';
import { PostgresOidcAdapter, sweepExpiredOAuthRows } from './oidc-adapter';
import { credentialResourceIndicators, richAuthorizationRequests } from './credential-authorization';
import { recordTokenEvents } from './token-events';
import { GATEWAY_OUTBOX } from '../tokens';

/** OAP versions this region serves (discovery's `oap_protocol_versions_supported`). */
export const OAP_PROTOCOL_VERSIONS = ['1.0'] as const;

/** The provider's endpoints, all under `/oauth` (PAR also at `/oauth2/par`). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  pushed_authorization_request: '/oauth/par',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  revocation: '/oauth/revoke',
  introspection: '/oauth/introspect',
  end_session: '/oauth/logout',
  device_authorization: '/oauth/device_authorization',
  code_verification: '/oauth/device',
} as const;

const INTERACTION = /^\/oauth\/interaction\/([A-Za-z0-9_-]{1,64})(?:\/(confirm|abort))?$/;
const SWEEP_INTERVAL_MS = 60_000;
/** RFC 8628 §3.2: the default polling interval (the provider announces none). */
const DEVICE_POLL_INTERVAL_SECONDS = 5;
/** Largest token request body read ahead of the provider (forms of a few fields). */
const MAX_TOKEN_BODY_BYTES = 65_536;
const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Requests sent to `/oauth/token/exchange` (routed to the token endpoint): their DPoP `htu` is that path. */
const exchangeRequests = new WeakSet<IncomingMessage>();

/**
 * The region's OpenID provider (oidc-provider, a Koa app) mounted on the Fastify adapter through
 * its Node request handler. The routes are registered with an `onRequest` hook that hands the raw
 * request over before Fastify's body parsing runs, so the platform's JSON-only parsers never see
 * (or consume) the provider's form bodies. Issuer: the region's PUBLIC_BASE_URL.
 */
@Injectable()
export class OidcProviderHost implements OnModuleInit, OnApplicationShutdown {
  private provider?: Provider;
  private handler?: NodeHandler;
  private interactions?: Interactions;
  private sweeper?: NodeJS.Timeout;
  private readonly guards: DeviceGuards;

  constructor(
    private readonly config: PlatformConfig,
    private readonly oauthConfig: OAuthConfig,
    private readonly adapterHost: HttpAdapterHost,
    private readonly dataSource: DataSource,
    private readonly kek: KeyEncryption,
    private readonly signingKeys: SigningKeyStore,
    private readonly clients: OAuthClientsRepository,
    private readonly applications: ApplicationsRepository,
    private readonly accessTokens: AccessTokenResolver,
    @Inject(LOGGER) private readonly logger: Logger,
    @Optional() @Inject(PERSON_SESSIONS) private readonly sessions: PersonSessions | null,
    @Optional() @Inject(PERSON_DIRECTORY) private readonly directory: PersonDirectory | null,
    private readonly rpc: RpcClient,
    @Optional() @Inject(DELEGATION_SUBJECTS) private readonly delegations: DelegationSubjects | null,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {
    this.guards = new DeviceGuards(dataSource, {
      intervalSeconds: DEVICE_POLL_INTERVAL_SECONDS,
      maxWrong: oauthConfig.OAUTH_DEVICE_MAX_WRONG_CODES,
      windowSeconds: oauthConfig.OAUTH_DEVICE_CODE_TTL_SECONDS,
    });
  }

  /** The provider (after module init). */
  get oidc(): Provider {
    if (!this.provider) throw new Error('The OpenID provider is not started');
    return this.provider;
  }

  async onModuleInit(): Promise<void> {
    // Loaded here, not at import: processes that never serve OAuth (the admin CLI) do not load it.
    const oidc = await import('oidc-provider');
    const provider = new oidc.Provider(this.config.publicBaseUrl, await this.configuration(oidc.errors));
    // Behind the region's ingress (TLS terminated upstream): trust X-Forwarded-Proto for cookie flags.
    provider.proxy = true;
    provider.on('server_error', (_ctx: unknown, error: unknown) => {
      this.logger.error({ err_name: error instanceof Error ? error.name : 'unknown' }, 'oauth server error');
    });
    recordTokenEvents(provider, {
      dataSource: this.dataSource,
      outbox: this.outbox,
      logger: this.logger,
      now: () => this.clock.now(),
      applicationOf: async (clientId) => {
        const metadata = await this.clients.metadataOf(clientId);
        return typeof metadata?.application_id === 'string' ? metadata.application_id : undefined;
      },
    });
    provider.registerGrantType(
      TOKEN_EXCHANGE_GRANT,
      tokenExchangeGrant({
        rpc: this.rpc,
        errors: oidc.errors,
        publicBaseUrl: this.config.publicBaseUrl,
        applicationOf: async (clientId) => {
          const metadata = await this.clients.metadataOf(clientId);
          return typeof metadata?.application_id === 'string' ? metadata.application_id : undefined;
        },
        delegations: this.delegations,
        pathOf: (req) => (exchangeRequests.has(req) ? TOKEN_EXCHANGE_PATH : OAUTH_ROUTES.token),
      }),
      TOKEN_EXCHANGE_PARAMETERS,
    );
    this.provider = provider;
    this.handler = provider.callback();
    this.interactions = new Interactions(provider, this.sessions);
    this.mount(this.adapterHost.httpAdapter.getInstance<FastifyInstance>());
    this.accessTokens.register({ verify: (token) => this.verifyAccessToken(token) });
    this.sweeper = setInterval(() => {
      sweepExpiredOAuthRows(this.dataSource).catch(() => undefined);
    }, SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  private mount(fastify: FastifyInstance): void {
    const onRequest = (request: { raw: IncomingMessage }, reply: { raw: ServerResponse; hijack(): void }, done: () => void): void => {
      reply.hijack();
      void this.dispatch(request.raw, reply.raw);
      done();
    };
    const methods: Array<'GET' | 'POST' | 'OPTIONS'> = ['GET', 'POST', 'OPTIONS'];
    const noop = async (): Promise<void> => undefined;
    for (const url of ['/oauth/*', '/oauth2/par', '/.well-known/openid-configuration']) {
      fastify.route({ method: methods, url, onRequest, handler: noop });
    }
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === '/oauth2/par') req.url = `/oauth/par${url.search}`;
      if (url.pathname === TOKEN_EXCHANGE_PATH) {
        if (req.method !== 'POST') {
          oauthJson(res, 405, { error: 'invalid_request', error_description: 'POST only' });
          return;
        }
        exchangeRequests.add(req);
        req.url = `${OAUTH_ROUTES.token}${url.search}`;
        url.pathname = OAUTH_ROUTES.token;
      }
      const interaction = INTERACTION.exec(url.pathname);
      if (interaction?.[1]) {
        await this.interactions?.handle(req, res, interaction[1], interaction[2]);
        return;
      }
      if (url.pathname === OAUTH_ROUTES.token && req.method === 'POST' && (await this.slowDown(req, res))) return;
      if (url.pathname === OAUTH_ROUTES.code_verification && (await this.guards.locked(addressOf(req)))) {
        const locale = pageLocale(header(req, 'accept-language'));
        const t = strings(locale);
        sendPage(res, 429, page(locale, t.device_title, `<p role="alert">${escapeHtml(t.device_locked)}</p>`));
        return;
      }
      this.handler?.(req, res);
    } catch (error) {
      this.logger.error({ err_name: error instanceof Error ? error.name : 'unknown' }, 'oauth request failed');
      if (!res.headersSent) {
        res.statusCode = 500;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ error: 'server_error' }));
      }
    }
  }

  /**
   * A person's access token as the platform's guard sees it: the person, the client's application,
   * the granted scopes. A DPoP-bound token is refused here (its proof is checked only by the
   * provider's own endpoints), as is anything unknown, expired or revoked.
   */
  private async verifyAccessToken(token: string): Promise<ResolvedCredential | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const accessToken = await this.oidc.AccessToken.find(token);
    if (!accessToken || accessToken.isExpired || accessToken.jkt) return null;
    const client = await this.clients.metadataOf(accessToken.clientId);
    const application =
      typeof client?.application_id === 'string' ? await this.applications.findApplication(client.application_id) : undefined;
    if (!application) return null;
    return {
      kind: 'access_token',
      applicationId: application.id,
      credentialId: accessToken.clientId,
      scopes: (accessToken.scope ?? '').split(' ').filter(Boolean),
      environment: application.environment,
      region: this.config.REGION,
      mode: application.mode,
      personId: accessToken.accountId,
      ...(accessToken.rar?.length ? { authorizationDetails: accessToken.rar.map((detail) => ({ ...detail })) } : {}),
    };
  }

  /**
   * Reads the token request's form ahead of the provider (which then takes it from `req.body`) to
   * answer a device polling too fast with `slow_down`. True when the answer was sent here.
   */
  private async slowDown(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_TOKEN_BODY_BYTES) {
        oauthJson(res, 413, { error: 'invalid_request', error_description: 'request body too large' });
        return true;
      }
      chunks.push(chunk as Buffer);
    }
    const body = Buffer.concat(chunks);
    (req as IncomingMessage & { body?: Buffer }).body = body;
    const form = new URLSearchParams(body.toString('utf8'));
    if (exchangeRequests.has(req) && form.get('grant_type') !== TOKEN_EXCHANGE_GRANT) {
      oauthJson(res, 400, {
        error: 'unsupported_grant_type',
        error_description: `${TOKEN_EXCHANGE_PATH} serves grant_type ${TOKEN_EXCHANGE_GRANT} only`,
      });
      return true;
    }
    const deviceCode = form.get('device_code');
    if (form.get('grant_type') !== DEVICE_CODE_GRANT || !deviceCode) return false;
    if (!(await this.guards.pollTooSoon(deviceCode))) return false;
    oauthJson(res, 400, { error: 'slow_down', error_description: 'you are polling too quickly; wait 5 seconds more between polls' });
    return true;
  }

  private async signingJwks(): Promise<PrivateSigningJwk[]> {
    const jose = new JoseKeyStore(this.dataSource, this.config.REGION, this.kek);
    await jose.ensureActiveKeys();
    const rsaAndEc = await jose.activePrivateJwks();
    await this.signingKeys.ensureActiveKey();
    const ed = await this.signingKeys.activeKey();
    const edJwk = {
      ...(ed.privateKey.export({ format: 'jwk' }) as Record<string, unknown>),
      kid: ed.kid,
      alg: 'EdDSA',
      use: 'sig' as const,
    };
    // RS256 first: the default ID token algorithm signs with the first key of its type.
    return [...rsaAndEc.sort((a: PrivateSigningJwk) => (a.alg === 'RS256' ? -1 : 1)), edJwk];
  }

  private async configuration(errors: typeof import('oidc-provider').errors): Promise<Record<string, unknown>> {
    const invalidGrant = errors.InvalidGrant;
    const ttl = this.oauthConfig;
    const cookieKey = Buffer.from(
      hkdfSync('sha256', Buffer.from(this.config.KEY_ENCRYPTION_KEY, 'base64'), this.config.REGION, 'oauth cookies', 32),
    ).toString('base64url');
    const directory = this.directory;
    return {
      adapter: (name: string) => new PostgresOidcAdapter(name, this.dataSource, this.clients, invalidGrant),
      jwks: { keys: await this.signingJwks() },
      cookies: {
        keys: [cookieKey],
        long: { signed: true, httpOnly: true, sameSite: 'lax' },
        short: { signed: true, httpOnly: true, sameSite: 'lax' },
      },
      routes: OAUTH_ROUTES,
      scopes: [...OAUTH_SCOPES],
      claims: { openid: ['sub', 'amr', 'auth_time'], profile: ['name', 'locale', 'zoneinfo'], email: ['email', 'email_verified'] },
      responseTypes: ['code'],
      clientAuthMethods: ['client_secret_basic', 'private_key_jwt', 'none'],
      allowOmittingSingleRegisteredRedirectUri: false,
      extraClientMetadata: { properties: ['application_id'] },
      clientDefaults: {
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        id_token_signed_response_alg: 'RS256',
        token_endpoint_auth_method: 'client_secret_basic',
      },
      enabledJWA: { idTokenSigningAlgValues: ['RS256', 'ES256', 'EdDSA'], dPoPSigningAlgValues: ['ES256', 'EdDSA', 'RS256', 'PS256'] },
      pkce: { required: () => true },
      rotateRefreshToken: true,
      issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }, code: { scopes: Set<string> }) =>
        client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
      ttl: {
        AccessToken: ttl.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
        AuthorizationCode: ttl.OAUTH_CODE_TTL_SECONDS,
        DeviceCode: ttl.OAUTH_DEVICE_CODE_TTL_SECONDS,
        PushedAuthorizationRequest: ttl.OAUTH_PAR_TTL_SECONDS,
        RefreshToken: ttl.OAUTH_REFRESH_TOKEN_TTL_SECONDS,
        Grant: ttl.OAUTH_REFRESH_TOKEN_TTL_SECONDS,
        IdToken: 3_600,
        Interaction: 3_600,
        Session: 1_209_600,
      },
      discovery: { oap_protocol_versions_supported: [...OAP_PROTOCOL_VERSIONS] },
      features: {
        devInteractions: { enabled: false },
        pushedAuthorizationRequests: { enabled: true, requirePushedAuthorizationRequests: true, allowUnregisteredRedirectUris: false },
        dPoP: { enabled: true },
        // A client introspects and revokes only its own tokens: never another application's.
        revocation: { enabled: true, allowedPolicy: ownTokenOnly },
        introspection: { enabled: true, allowedPolicy: ownTokenOnly },
        // OpenID4VCI authorization code flow: `authorization_details` of type openid_credential.
        richAuthorizationRequests: richAuthorizationRequests(this.config.publicBaseUrl, errors.InvalidAuthorizationDetails),
        resourceIndicators: credentialResourceIndicators(this.config.publicBaseUrl, errors.InvalidTarget),
        userinfo: { enabled: true },
        rpInitiatedLogout: { enabled: true, logoutSource: renderLogout, postLogoutSuccessSource: renderLoggedOut },
        deviceFlow: {
          enabled: true,
          userCodeInputSource: async (ctx: KoaContext & { req: IncomingMessage }, form: string, out: unknown, error: unknown) => {
            if (error instanceof Error && error.constructor.name === 'NotFoundError') await this.guards.wrongCode(addressOf(ctx.req));
            await renderUserCodeInput(ctx, form, out, error);
          },
          userCodeConfirmSource: renderUserCodeConfirm,
          successSource: renderDeviceSuccess,
        },
      },
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/oauth/interaction/${interaction.uid}` },
      findAccount: async (_ctx: unknown, sub: string) => {
        const person = directory ? await directory.findById(sub) : null;
        if (!person) return undefined;
        return {
          accountId: sub,
          claims: async () => ({
            sub,
            name: person.displayName,
            locale: person.locale,
            zoneinfo: person.timeZone,
            email: person.email,
            email_verified: person.emailVerified,
          }),
        };
      },
      renderError: async (ctx: KoaContext, out: { error?: string }) => {
        const locale = pageLocale(ctx.get('accept-language'));
        const t = strings(locale);
        const rendered = page(
          locale,
          t.error_title,
          `<p>${escapeHtml(t.error_text)}</p><p><code>${escapeHtml(out.error ?? 'invalid_request')}</code></p>`,
        );
        ctx.set(pageHeaders(rendered.nonce));
        ctx.type = 'html';
        ctx.body = rendered.html;
      },
    };
  }
}

async function ownTokenOnly(_ctx: unknown, client: { clientId: string }, token: { clientId?: string }): Promise<boolean> {
  return token.clientId === client.clientId;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Peers whose X-Forwarded-For is believed: the region's router or an ingress on a private network. */
const PROXY_PEER = /^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|::1$|::ffff:127\.|::ffff:10\.|::ffff:192\.168\.|f[cd][0-9a-f]{2}:)/i;

/**
 * The browser's address: the last X-Forwarded-For entry when the peer is our router or a private
 * ingress (the router overwrites the header with the address it saw), else the peer itself, so a
 * client talking to the process directly cannot choose the address it is counted under.
 */
function addressOf(req: IncomingMessage): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  const forwarded = header(req, 'x-forwarded-for');
  if (!forwarded || !PROXY_PEER.test(peer)) return peer;
  return forwarded.split(',').pop()?.trim() || peer;
}

function oauthJson(res: ServerResponse, status: number, body: Record<string, string>): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.end(JSON.stringify(body));
}

/** The part of Koa's context the rendering hooks use. */
interface KoaContext {
  get(name: string): string;
  set(headers: Record<string, string>): void;
  type: string;
  body: unknown;
  oidc?: { client?: { clientName?: string } };
}

function localeOf(ctx: KoaContext): string {
  return pageLocale(ctx.get('accept-language'));
}

function send(ctx: KoaContext, title: string, body: string, formTargets: readonly string[] = []): void {
  const rendered = page(localeOf(ctx), title, body);
  ctx.set(pageHeaders(rendered.nonce, formTargets));
  ctx.type = 'html';
  ctx.body = rendered.html;
}

async function renderLogout(ctx: KoaContext, form: string): Promise<void> {
  const t = strings(localeOf(ctx));
  send(
    ctx,
    t.logout_title,
    `<p>${escapeHtml(t.logout_intro)}</p>${form}<div id="svc-actions"><button class="primary" type="submit" form="op.logoutForm" value="yes" name="logout">${escapeHtml(t.logout_yes)}</button><button class="secondary" type="submit" form="op.logoutForm">${escapeHtml(t.logout_no)}</button></div>`,
    ['*'],
  );
}

async function renderLoggedOut(ctx: KoaContext): Promise<void> {
  const t = strings(localeOf(ctx));
  send(ctx, t.logout_title, `<p>${escapeHtml(t.logout_done)}</p>`);
}

async function renderUserCodeInput(ctx: KoaContext, form: string, _out: unknown, error: unknown): Promise<void> {
  const t = strings(localeOf(ctx));
  const message = error ? `<p role="alert">${escapeHtml(t.device_wrong)}</p>` : '';
  // The provider's form carries the xsrf field and the code input; the input gets a label and loses its inline handler.
  const labelled = form
    .replace(/ onfocus="[^"]*"/, '')
    .replace(/placeholder="Enter code"/, `id="svc-user-code" placeholder="${escapeHtml(t.device_code_label)}"`)
    .replace(
      '<input type="hidden" name="xsrf"',
      `<label for="svc-user-code">${escapeHtml(t.device_code_label)}</label><input type="hidden" name="xsrf"`,
    );
  send(
    ctx,
    t.device_title,
    `<p>${escapeHtml(t.device_intro)}</p>${message}${labelled}<div id="svc-actions"><button class="primary" type="submit" form="op.deviceInputForm">${escapeHtml(t.device_submit)}</button></div>`,
  );
}

async function renderUserCodeConfirm(ctx: KoaContext, form: string, client: { clientName?: string }): Promise<void> {
  const t = strings(localeOf(ctx));
  send(
    ctx,
    t.device_title,
    `<p>${escapeHtml(t.device_confirm.replace('{client}', client.clientName ?? ''))}</p>${form}<div id="svc-actions"><button class="primary" type="submit" form="op.deviceConfirmForm">${escapeHtml(t.device_submit)}</button><button class="secondary" type="submit" form="op.deviceConfirmForm" value="yes" name="abort">${escapeHtml(t.deny)}</button></div>`,
  );
}

async function renderDeviceSuccess(ctx: KoaContext): Promise<void> {
  const t = strings(localeOf(ctx));
  send(ctx, t.device_title, `<p>${escapeHtml(t.device_done)}</p>`);
}
