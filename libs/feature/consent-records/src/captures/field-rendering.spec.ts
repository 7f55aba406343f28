import { createHash } from 'node:crypto';
import type { FlowTerms, FlowVersion } from '../flows/flow';
import { renderConsentField, renderingEvidenceOf } from './field-rendering';

function flowVersion(terms: Partial<FlowTerms> = {}, version = 1): FlowVersion {
  return {
    flowId: 'flw_us_aaaaaaaaaaaaaaaaaaaa',
    applicationId: 'tp_us_app',
    version,
    status: 'active',
    activeVersion: version,
    latestVersion: version,
    createdAt: new Date('2026-07-01T00:00:00Z'),
    updatedAt: new Date('2026-07-01T00:00:00Z'),
    activatedAt: new Date('2026-07-01T00:00:00Z'),
    terms: {
      name: 'Signup',
      locale: 'en',
      presentation: { title: 'Stay in touch', description: 'Choose what we may send you.' },
      policy_url: null,
      purposes: [
        { key: 'newsletter', label: 'Newsletter', description: 'A monthly letter', mechanism: 'consent', required: false },
        { key: 'offers', label: 'Partner <offers> & "deals"', description: '', mechanism: 'consent', required: false },
        { key: 'account', label: 'Account', description: '', mechanism: 'contract', required: true },
      ],
      data_fields: [],
      purpose_of_use: null,
      retention_period: null,
      revocation_policy: 'any_time',
      consent_path: 'standard',
      requirements: [],
      consent_duration: 'P1Y',
      ...terms,
    },
  };
}

/** Spec: What the service does 3 (service-rendered consent field); receipt extension rendering_evidence. */
describe('consent field rendering', () => {
  it('renders one unticked, optional checkbox per consent purpose with its wording, escaped', () => {
    const { html } = renderConsentField(flowVersion());
    expect(html).toContain('<legend class="svc-consent-field__title">Stay in touch</legend>');
    expect(html).toContain('Choose what we may send you.');
    expect(html).toContain(
      '<div class="svc-consent-field__purpose"><label><input type="checkbox" data-svc-purpose="newsletter"><span class="svc-consent-field__label">Newsletter</span></label><div class="svc-consent-field__purpose-description">A monthly letter</div></div>',
    );
    expect(html).toContain('Partner &lt;offers&gt; &amp; &quot;deals&quot;');
    expect(html.match(/<input /g)).toHaveLength(2);
    // A consent purpose is never pre-ticked or required; a contract purpose is not a choice.
    expect(html).not.toMatch(/checked|required/);
    expect(html).not.toContain('account');
  });

  it('has a digest that is the SHA-256 of the HTML and changes with the wording and the version', () => {
    const rendering = renderConsentField(flowVersion());
    expect(rendering.digest).toBe(createHash('sha256').update(rendering.html, 'utf8').digest('hex'));
    expect(renderConsentField(flowVersion()).digest).toBe(rendering.digest);
    expect(
      renderConsentField(flowVersion({ presentation: { title: 'Stay in touch!', description: 'Choose what we may send you.' } })).digest,
    ).not.toBe(rendering.digest);
    expect(renderConsentField(flowVersion({}, 2)).digest).not.toBe(rendering.digest);
  });

  it('accepts the rendering evidence only for the field channel and only for the exact rendering', () => {
    const flow = flowVersion();
    const { digest } = renderConsentField(flow);
    expect(renderingEvidenceOf(flow, 'embedded_field_browser', digest)).toBe(digest);
    expect(renderingEvidenceOf(flow, 'form_capture_browser', undefined)).toBeNull();
    const refusal = (code: string) => expect.objectContaining({ code });
    expect(() => renderingEvidenceOf(flow, 'embedded_field_browser', undefined)).toThrow(refusal('rendering_evidence_missing'));
    expect(() => renderingEvidenceOf(flow, 'embedded_field_browser', 'a'.repeat(64))).toThrow(refusal('rendering_evidence_mismatch'));
    expect(() => renderingEvidenceOf(flowVersion({}, 2), 'embedded_field_browser', digest)).toThrow(refusal('rendering_evidence_mismatch'));
    expect(() => renderingEvidenceOf(flow, 'form_capture_browser', digest)).toThrow(refusal('rendering_evidence_not_applicable'));
  });
});
