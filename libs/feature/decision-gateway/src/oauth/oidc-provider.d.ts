// The slice of oidc-provider 9 (which ships no type declarations) that decision-gateway uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface AdapterPayload {
    [key: string]: unknown;
    jti?: string;
    grantId?: string;
    userCode?: string;
    uid?: string;
    consumed?: unknown;
    exp?: number;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { accountId?: string; uid?: string };
    grantId?: string;
    returnTo: string;
  }

  export interface GrantInstance {
    accountId?: string;
    clientId?: string;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    /** RFC 9396 authorization details the person consented to. */
    addRar(detail: Record<string, unknown>): void;
    rar?: Array<Record<string, unknown>>;
    save(): Promise<string>;
  }

  export interface ClientInstance {
    clientId: string;
    clientName?: string;
    redirectUris: string[];
  }

  export interface AccessTokenInstance {
    accountId: string;
    clientId: string;
    scope?: string;
    jkt?: string;
    /** RFC 9396 authorization details granted to the token. */
    rar?: Array<Record<string, unknown>>;
    isValid: boolean;
    isExpired: boolean;
  }

  export type ProviderConfiguration = Record<string, unknown>;

  export class Provider {
    constructor(issuer: string, configuration: ProviderConfiguration);
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    on(event: string, listener: (...args: unknown[]) => void): this;
    /** Adds a grant type to the token endpoint; the handler answers through the Koa context. */
    registerGrantType(name: string, handler: (ctx: never) => Promise<void>, parameters?: string[] | Set<string>): void;
    Grant: {
      new (properties: { accountId: string; clientId: string }): GrantInstance;
      find(id: string): Promise<GrantInstance | undefined>;
    };
    Client: { find(id: string): Promise<ClientInstance | undefined> };
    AccessToken: { find(value: string): Promise<AccessTokenInstance | undefined> };
  }

  export const errors: {
    InvalidGrant: new (detail: string) => Error;
    InvalidRequest: new (detail: string) => Error;
    InvalidScope: new (detail: string, scope: string) => Error;
    InvalidDpopProof: new (detail: string) => Error;
    InvalidAuthorizationDetails: new (detail: string) => Error;
    InvalidTarget: new (detail?: string) => Error;
    OIDCProviderError: new (status: number, message: string) => Error;
  };
}
