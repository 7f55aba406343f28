import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, type HttpResult } from '@svc/testing';
import * as oidc from 'openid-client';
import { personWithAccessToken, type OAuthRegion } from '../oauth/support';

export type Json = Record<string, unknown>;

export const CONSOLE_REDIRECT = 'http://127.0.0.1:5571/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/**
 * The operator's one-time setup of a region, not a newcomer's doing: the console application
 * (admin CLI use case) and its OAuth client, registered with the `accounts` scope so people can
 * sign in to it and manage their accounts. Every account and application after this is made
 * through the API.
 */
export async function consoleClient(region: OAuthRegion): Promise<oidc.Configuration> {
  const created = await region.stack.process.us.app
    .get(CreateApplication)
    .execute(CreateApplicationCommand.create({ name: 'Console', environment: 'development' }));
  const client = await http('POST', `${region.url}/api/v1/applications/${created.application.id}/oauth_clients`, {
    headers: bearer(created.apiToken),
    json: { name: 'Console', redirect_uris: [CONSOLE_REDIRECT], scopes: ['openid', 'profile', 'email', 'accounts'] },
  });
  if (client.status !== 201) throw new Error(`console client answered ${client.status}: ${JSON.stringify(client.body)}`);
  return oidc.discovery(
    new URL(region.url),
    client.body.client_id as string,
    undefined,
    oidc.ClientSecretBasic(client.body.client_secret as string),
    insecure,
  );
}

/** A person signed up and signed in to the console with the `accounts` scope (and their browser's sign-in cookie). */
export async function consolePerson(
  region: OAuthRegion,
  config: oidc.Configuration,
  email: string,
  name: string,
): Promise<{ id: string; token: string; cookie: string }> {
  return personWithAccessToken(region, config, CONSOLE_REDIRECT, { email, name }, 'openid profile accounts');
}

/** The person's new account (they are its owner). */
export async function createAccount(url: string, token: string, name: string): Promise<string> {
  const res = await http('POST', `${url}/api/v1/accounts`, { headers: bearer(token), json: { name } });
  if (res.status !== 201) throw new Error(`account answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

export interface ApiApplication {
  id: string;
  token: string;
  pk: string;
  environment: string;
}

/** An application created through the API by an account credential. */
export async function createApplication(url: string, credential: string, body: Json): Promise<HttpResult & { app?: ApiApplication }> {
  const res = await http('POST', `${url}/api/v1/applications`, { headers: bearer(credential), json: body });
  if (res.status !== 201) return res;
  const application = res.body.application as Json;
  const apiToken = res.body.api_token as Json;
  return Object.assign(res, {
    app: {
      id: application.id as string,
      token: apiToken.token as string,
      pk: application.publishable_key as string,
      environment: application.environment as string,
    },
  });
}

/** An active flow with two consent purposes, made with the application's API token. */
export async function activeFlow(url: string, apiToken: string): Promise<string> {
  const flow = await http('POST', `${url}/api/v1/flows`, {
    headers: bearer(apiToken),
    json: {
      name: 'Newsletter',
      locale: 'en',
      presentation: { title: 'Stay in touch', description: 'What we do with your details' },
      purposes: [
        { key: 'newsletter', label: 'Newsletter', description: 'A monthly letter', mechanism: 'consent' },
        { key: 'research', label: 'Product research', description: 'Occasional surveys', mechanism: 'consent' },
      ],
      consent_duration: 'P1Y',
    },
  });
  if (flow.status !== 201) throw new Error(`flow answered ${flow.status}: ${JSON.stringify(flow.body)}`);
  const activated = await http('POST', `${url}/api/v1/flows/${flow.body.id as string}/activate`, { headers: bearer(apiToken), json: {} });
  if (activated.status >= 300) throw new Error(`activation answered ${activated.status}`);
  return flow.body.id as string;
}
