import { sha256Hex } from '@svc/crypto';
import { consentRecordsError } from '../consent-records.errors';
import type { FlowVersion } from '../flows/flow';
import type { CaptureChannel } from './capture';

/** The service-rendered consent field of one flow version: the HTML fragment and its digest. */
export interface ConsentFieldRendering {
  flowId: string;
  flowVersion: number;
  locale: string;
  html: string;
  /** SHA-256 (hex) of `html` as UTF-8: the rendering evidence a capture carries back. */
  digest: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/**
 * Renders the consent purposes of a flow version as the field shows them: the flow's title and
 * description, then one unticked, optional checkbox per consent purpose with its label and
 * description. A consent purpose is never pre-ticked or required, so the rendering has neither
 * attribute. Purposes on another lawful basis are not choices and are not rendered. The output
 * is deterministic, so the digest identifies the exact wording of that version.
 */
export function renderConsentField(flow: FlowVersion): ConsentFieldRendering {
  const { terms } = flow;
  const parts = [
    `<fieldset class="svc-consent-field" lang="${escapeHtml(terms.locale)}" data-flow="${escapeHtml(flow.flowId)}" data-flow-version="${flow.version}">`,
    `<legend class="svc-consent-field__title">${escapeHtml(terms.presentation.title)}</legend>`,
  ];
  if (terms.presentation.description)
    parts.push(`<p class="svc-consent-field__description">${escapeHtml(terms.presentation.description)}</p>`);
  for (const purpose of terms.purposes.filter((p) => p.mechanism === 'consent')) {
    const description = purpose.description
      ? `<div class="svc-consent-field__purpose-description">${escapeHtml(purpose.description)}</div>`
      : '';
    parts.push(
      `<div class="svc-consent-field__purpose"><label><input type="checkbox" data-svc-purpose="${escapeHtml(purpose.key)}"><span class="svc-consent-field__label">${escapeHtml(purpose.label)}</span></label>${description}</div>`,
    );
  }
  parts.push('</fieldset>');
  const html = parts.join('\n');
  return { flowId: flow.flowId, flowVersion: flow.version, locale: terms.locale, html, digest: sha256Hex(html) };
}

/**
 * The rendering evidence a capture stores. Channel `embedded_field_browser` claims the service
 * rendered the wording, so it must carry the digest of the field the service renders for the
 * version being captured; the snippet channel (the organisation's own controls) has no rendering
 * to prove and may not claim one.
 */
export function renderingEvidenceOf(flow: FlowVersion, channel: CaptureChannel, digest: string | undefined): string | null {
  if (channel !== 'embedded_field_browser') {
    if (digest !== undefined) {
      throw consentRecordsError(
        'rendering_evidence_not_applicable',
        `rendering_digest exists only for the service-rendered field (channel embedded_field_browser), not ${channel}`,
        { channel },
      );
    }
    return null;
  }
  if (digest === undefined) {
    throw consentRecordsError(
      'rendering_evidence_missing',
      'channel embedded_field_browser needs the rendering_digest of the field the person was shown',
      { channel },
    );
  }
  if (digest !== renderConsentField(flow).digest) {
    throw consentRecordsError(
      'rendering_evidence_mismatch',
      "rendering_digest is not the digest of the field this service renders for the flow's active version; reload the page to show the current wording",
      {
        flow_id: flow.flowId,
        flow_version: flow.version,
      },
    );
  }
  return digest;
}
