import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './openapi';

export type { components, operations, paths } from './openapi';

/** A client of one region's API, typed by the published OpenAPI document: paths, bodies and answers. */
export type ApiClient = Client<paths>;

/**
 * Creates a typed client: `baseUrl` is the region's router, `token` an API token sent as a bearer
 * on every request.
 */
export function createApiClient(options: { baseUrl: string; token?: string } & Omit<ClientOptions, 'baseUrl'>): ApiClient {
  const { token, headers, ...rest } = options;
  return createClient<paths>({
    ...rest,
    headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...(headers as Record<string, string> | undefined) },
  });
}
