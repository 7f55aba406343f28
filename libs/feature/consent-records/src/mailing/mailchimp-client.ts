import { EgressClient, isRefusedTargetError, type EgressEnvironment } from '@svc/egress';
import { subscriberHash } from './mailing-audience';
import type { PermissionWrite, TagWrite } from './member-write';

/** Largest response body read; members are small documents. */
const MAX_RESPONSE_BYTES = 256 * 1024;

/** The outcome of one call: a status (with the parsed JSON body, if any), or a short network error text. */
export type CallResult = { statusCode: number; body: unknown; retryAfterSec?: number } | { error: string };

/** Where and as whom to call the tool. The key is passed per call and never logged or kept. */
export interface MailchimpTarget {
  apiBaseUrl: string;
  apiKey: string;
  listId: string;
  /** The integration's application environment: which addresses its calls may reach. */
  environment: EgressEnvironment;
}

/** A member as read back from the tool (only what the read-back needs). */
export interface MemberReadBack {
  status: string;
  permissions: PermissionWrite[];
}

/**
 * Calls Mailchimp's Marketing API (v3) through the guarded egress client: add-or-update a list
 * member (keyed by the MD5 of the lower-cased email), change its tags, read it back. HTTP Basic
 * authentication with the API key as password. Every connection is checked against the
 * integration's environment (a refused address is the error `target_address_refused:<range>`).
 * Never follows redirects and never throws.
 */
export class MailchimpClient {
  private readonly client = new EgressClient({ maxResponseBytes: MAX_RESPONSE_BYTES, responseBody: 'text' });

  /** PUT /lists/{list_id}/members/{hash}: the member's marketing permissions; creates the member when new. */
  upsertMember(
    target: MailchimpTarget,
    email: string,
    permissions: readonly PermissionWrite[],
    statusIfNew: 'subscribed' | 'unsubscribed',
  ): Promise<CallResult> {
    return this.call(target, 'PUT', this.memberPath(target, email), {
      email_address: email,
      status_if_new: statusIfNew,
      marketing_permissions: permissions,
    });
  }

  /** POST /lists/{list_id}/members/{hash}/tags: makes tags active or inactive (204 on success). */
  updateTags(target: MailchimpTarget, email: string, tags: readonly TagWrite[]): Promise<CallResult> {
    return this.call(target, 'POST', `${this.memberPath(target, email)}/tags`, { tags });
  }

  /** GET /lists/{list_id}/members/{hash}. */
  getMember(target: MailchimpTarget, email: string): Promise<CallResult> {
    return this.call(target, 'GET', this.memberPath(target, email));
  }

  close(): Promise<void> {
    return this.client.close();
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
    const result = await this.client.send({
      method,
      url: `${target.apiBaseUrl}${path}`,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      environment: target.environment,
    });
    if ('error' in result) return { error: result.error };
    const retryAfter = Number(result.headers['retry-after']);
    return {
      statusCode: result.statusCode,
      body: parseJson(result.body),
      ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSec: retryAfter } : {}),
    };
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
      if (typeof p?.marketing_permission_id === 'string' && typeof p.enabled === 'boolean')
        parsed.push({ marketing_permission_id: p.marketing_permission_id, enabled: p.enabled });
    }
  }
  return { status, permissions: parsed };
}

/** Whether the call never reached the tool because its address is refused for the environment (permanent). */
export function targetRefused(result: CallResult): boolean {
  return 'error' in result && isRefusedTargetError(result.error);
}

/** A short text for a failed call: `http_<status>` plus the problem title Mailchimp answers with. */
export function callErrorText(result: CallResult): string {
  if ('error' in result) return result.error;
  const title = typeof result.body === 'object' && result.body !== null ? (result.body as { title?: unknown }).title : undefined;
  return `http_${result.statusCode}${typeof title === 'string' ? `: ${title.slice(0, 200)}` : ''}`;
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
