import type { DecisionSession } from '../decisions/decision';
import { isOneScreen, renderDecisionPage, type FlowPresentation, type PageModel } from './render-page';

const flow: FlowPresentation = {
  title: 'Vos choix',
  description: 'Ce que nous faisons de vos données',
  locale: 'fr-FR',
  policyUrl: 'https://acme.example/privacy',
  purposes: [
    { key: 'newsletter', label: 'Lettre', description: 'Un courriel par mois', required: false, mechanism: 'consent' },
    { key: 'ads', label: 'Publicité', description: '', required: true, mechanism: 'consent' },
    { key: 'service', label: 'Compte', description: 'Nécessaire au service', required: true, mechanism: 'contract' },
  ],
  requirements: [],
};

function session(patch: Partial<DecisionSession> = {}): DecisionSession {
  return {
    kind: 'consent',
    status: 'pending',
    consentPath: 'standard',
    principalId: 'user-1',
    purposes: ['newsletter', 'ads', 'service'],
    outcome: null,
    completedAt: null,
    deadline: new Date('2026-11-22T10:15:00.000Z'),
    deliveryMode: 'direct',
    triggerType: null,
    ...patch,
  } as unknown as DecisionSession;
}

function model(patch: Partial<PageModel> = {}): PageModel {
  return {
    session: session(),
    sessionToken: 'A'.repeat(43),
    state: { status: 'pending', allowed_actions: ['sign_in', 'decline'] },
    flow,
    locale: 'de',
    applicationName: 'Acme',
    branding: { name: 'Acme', logoUrl: 'https://cdn.acme.example/logo.svg', brandColor: '#ffd400' },
    variant: 'full',
    target: 'none',
    parentOrigin: null,
    readyDropCounted: false,
    redirectUri: null,
    serverNow: new Date('2026-11-22T10:00:00.000Z'),
    nonce: 'n',
    ...patch,
  };
}

const config = (html: string) =>
  JSON.parse(/<script type="application\/json" id="svc-config">(.*?)<\/script>/s.exec(html)![1]!) as Record<string, unknown>;

/** Issue 19 item 8: one control per purpose, none ticked; the page's language; branding. */
describe('consent page', () => {
  it('gives every consent purpose its own unticked checkbox and shows a purpose fixed on another basis as such', () => {
    const html = renderDecisionPage(model());
    expect(html.match(/<input type="checkbox"[^>]*>/g)).toEqual([
      '<input type="checkbox" id="svc-purpose-0" name="purpose" value="newsletter" aria-describedby="svc-purpose-0-d">',
      // required, but a consent purpose: still a free choice (consent is never a condition)
      '<input type="checkbox" id="svc-purpose-1" name="purpose" value="ads">',
    ]);
    expect(html).not.toMatch(/<input[^>]*checked/);
    expect(html).toContain('data-purpose="service" data-fixed="true"');
    expect(html).toContain('Immer aktiv');
    expect(config(html)['purposes']).toEqual([
      { key: 'newsletter', label: 'Lettre', fixed: false },
      { key: 'ads', label: 'Publicité', fixed: false },
      { key: 'service', label: 'Compte', fixed: true },
    ]);
  });

  it('sets lang and dir from the negotiated language and marks the flow wording with its own lang', () => {
    const html = renderDecisionPage(model());
    expect(html).toContain('<html lang="de" dir="ltr">');
    expect(html).toContain('<h1 id="svc-title" tabindex="-1" lang="fr-FR">Vos choix</h1>');
    expect(html).toContain('<label for="svc-purpose-0" lang="fr-FR">Lettre</label>');
    expect(html).toContain(
      'Entscheiden bis <time data-detail="deadline" data-format="datetime" datetime="2026-11-22T10:15:00.000Z">22. November 2026 um 10:15 UTC</time>',
    );
  });

  it('brands the page: logo, brand colour with contrast-safe text, the name written out', () => {
    const html = renderDecisionPage(model());
    expect(html).toContain(
      '<p class="brand"><img src="https://cdn.acme.example/logo.svg" alt="" height="40" referrerpolicy="no-referrer"><span>Acme</span></p>',
    );
    expect(html).toMatch(/--brand:#ffd400;--on-brand:#000000;--brand-ink:#[0-9a-f]{6}/);
    expect(config(html)['branding']).toEqual({ name: 'Acme', logo_url: 'https://cdn.acme.example/logo.svg' });
  });

  it('shows a decided session read-only with the purposes granted', () => {
    const html = renderDecisionPage(
      model({ session: session({ status: 'fulfilled', outcome: 'granted', completedAt: new Date(), purposes: ['ads', 'service'] }) }),
    );
    expect(html).toContain('value="newsletter" disabled');
    expect(html).toContain('value="ads" checked disabled');
    expect(config(html)['granted']).toEqual(['ads', 'service']);
  });

  it('is one screen only with nothing to check and a person already bound', () => {
    expect(isOneScreen({ session: session(), flow })).toBe(true);
    expect(isOneScreen({ session: session({ principalId: null }), flow })).toBe(false);
    expect(isOneScreen({ session: session(), flow: { ...flow, requirements: ['identity_verification'] } })).toBe(false);
    expect(isOneScreen({ session: session({ consentPath: 'informed' }), flow })).toBe(false);
    expect(isOneScreen({ session: session(), flow, personNotice: 'Ada, please sign in to confirm it is you.' })).toBe(false);
  });
});
