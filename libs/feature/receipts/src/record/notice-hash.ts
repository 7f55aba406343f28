import { canonicalJson, sha256Hex } from '@svc/crypto';
import type { NoticeContent } from './inputs';

/**
 * The exact object the notice hash covers (spec, Durable receipt schema, pii_processing): locale,
 * presentation title and description, policy URL, and the flow-visible purpose rows (name, label,
 * description, mechanism, required) sorted by name. Nothing else: data fields, retention or the
 * flow's internal name do not change what the person read, so they do not change the hash.
 */
export function noticeHashInput(notice: NoticeContent): Record<string, unknown> {
  const purposes = [...notice.purposes]
    .map((p) => ({ name: p.name, label: p.label, description: p.description, mechanism: p.mechanism, required: p.required }))
    .sort(byName);
  return {
    locale: notice.locale,
    presentation: { title: notice.title, description: notice.description },
    policy_url: notice.policy_url,
    purposes,
  };
}

/** SHA-256 (64 lowercase hex) of the RFC 8785 canonical JSON of {@link noticeHashInput}. */
export function noticeHash(notice: NoticeContent): string {
  return sha256Hex(canonicalJson(noticeHashInput(notice)));
}

/** Code-unit order, like RFC 8785 member order: locale-independent and stable across runtimes. */
function byName(a: { name: string }, b: { name: string }): number {
  if (a.name < b.name) return -1;
  // Stryker disable next-line all: Array.prototype.sort only asks whether the result is below zero, so 1 and 0 order alike
  return a.name > b.name ? 1 : 0;
}
