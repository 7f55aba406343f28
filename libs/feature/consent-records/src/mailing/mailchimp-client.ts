import { Agent, request } from 'undici';
import { subscriberHash } from './mailing-audience';
import type { PermissionWrite, TagWrite } from './member-write';

/** Connect timeout of a call to the tool, ms. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Read timeout (response headers, then each body chunk), ms. */
const READ_TIMEOUT_MS = 15_000;
/** Largest response body read; members are small documents. */
const MAX_RESPONSE_BYTES = 256 * 1024;

const ERROR_TEXT: Readonly<Record<string, string>> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect_timeout',
  UND_ERR_HEADERS_TIMEOUT: 'read_timeout',
  UND_ERR_BODY_TIMEOUT: 'read_timeout',
  ECONNREFUSED: 'connection_refused',
  ECONNRESET: 'connection_reset',
  ENOTFOUND: 'dns_not_found',
  EAI_AGAIN: 'dns_unavailable',
  UND_ERR_SOCKET: 'connection_closed',
};

/** The outcome of one call: a status (with the parsed JSON body, if any), or a short network error text. */
export type CallResult = { statusCode: number; body: unknown; retryAfterSec?: number } | { error: string };

/** Where and as whom to call the tool. The key is passed per call and never logged or kept. */
export interface MailchimpTarget {
  apiBaseUrl: string;
  apiKey: string;
  listId: string;
}

/** A member as read back from the tool (only what the read-back needs). */
export interface MemberReadBack {
  status: string;
  permissions: PermissionWrite[];
}

/**
 * Calls Mailchimp's Marketing API (v3) with undici: add-or-update a list member (keyed by the MD5
 * of the lower-cased email), change its tags, read it back. HTTP Basic authentication with the API
 * key as password. Never follows redirects and never throws.
 */
export class MailchimpClient {
  private readonly agent = new Agent({ connect: { timeout: CONNECT_TIMEOUT_MS }, headersTimeout: READ_TIMEOUT_MS, bodyTimeout: READ_TIMEOUT_MS, keepAliveTimeout: 4_000 });

  /** PUT /lists/{list_id}/members/{hash}: the member's marketing permissions; creates the member when new. */
  upsertMember(target: MailchimpTarget, email: string, permissions: readonly PermissionWrite[], statusIfNew: 'subscribed' | 'unsubscribed'): Promise<CallResult> {
    return this.call(target, 'PUT', this.memberPath(target, email), { email_address: email, status_if_new: statusIfNew, marketing_permissions: permissions });
  }

  /** POST /lists/{list_id}/members/{hash}/tags: makes tags active or inactive (204 on success). */
  updateTags(target: MailchimpTarget, email: string, tags: readonly TagWrite[]): Promise<CallResult> {
    return this.call(target, 'POST', `${this.memberPath(target, email)}/tags`, { tags });
  }

  /** GET /lists/{list_id}/members/{hash}. */
  getMember(target: MailchimpTarget, email: string): Promise<CallResult> {
    return this.call(target, 'GET', this.memberPath(target, email));
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }

  private memberPath(target: MailchimpTarget, email: string): string {
    return `/lists/${encodeURIComponent(target.listId)}/members/${subscriberHash(email)}`;
  }

  private async call(target: MailchimpTarget, method: 'GET' | 'PUT' | 'POST', path: string, body?: unknown): Promise<CallResult> {
    const headers: Record<string, string> = {
      authorization: `Basic ${Buffer.from(`svc:${target.apiKey}`, 'utf8').toString('base64')}`,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      const response = await request(`${target.apiBaseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), dispatcher: this.agent });
      const text = await readLimited(response.body);
      const retryAfter = Number(response.headers['retry-after']);
      return { statusCode: response.statusCode, body: parseJson(text), ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSec: retryAfter } : {}) };
    } catch (error) {
      const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code ?? '';
      return { error: ERROR_TEXT[code] ?? (code ? `network_error:${code}` : 'network_error') };
    }
  }
}

/** Reads a Mailchimp member body into what the read-back compares. */
export function memberReadBack(body: unknown): MemberReadBack | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { status, marketing_permissions: permissions } = body as { status?: unknown; marketing_permissions?: unknown };
  if (typeof status !== 'string') return undefined;
  const parsed: PermissionWrite[] = [];
  if (Array.isArray(permissions)) {
    for (const p of permissions as Array<{ marketing_permission_id?: unknown; enabled?: unknown }>) {
      if (typeof p?.marketing_permission_id === 'string' && typeof p.enabled === 'boolean') parsed.push({ marketing_permission_id: p.marketing_permission_id, enabled: p.enabled });
    }
  }
  return { status, permissions: parsed };
}

/** A short text for a failed call: `http_<status>` plus the problem title Mailchimp answers with. */
export function callErrorText(result: CallResult): string {
  if ('error' in result) return result.error;
  const title = typeof result.body === 'object' && result.body !== null ? (result.body as { title?: unknown }).title : undefined;
  return `http_${result.statusCode}${typeof title === 'string' ? `: ${title.slice(0, 200)}` : ''}`;
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy?: () => void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) {
      body.destroy?.();
      break;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
