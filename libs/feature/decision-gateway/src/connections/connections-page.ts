import { escapeHtml, plainPage } from '../hosted/html';
import type { PeopleLocale } from '../people/people-i18n';
import type { Connection } from './use-cases/person-connections.use-case';

const WORDS = {
  en: {
    title: 'Your connected applications',
    empty: 'No application is connected to you.',
    consents: 'consents',
    authorities: 'agent authorities',
    delegations: 'delegations',
    oauth: 'sign-in grants',
    revoke: 'Disconnect',
    revokeAll: 'Disconnect all',
    done: 'Disconnected.',
  },
  fr: {
    title: 'Vos applications connectées',
    empty: 'Aucune application n’est connectée à vous.',
    consents: 'consentements',
    authorities: 'autorités d’agent',
    delegations: 'délégations',
    oauth: 'autorisations de connexion',
    revoke: 'Déconnecter',
    revokeAll: 'Tout déconnecter',
    done: 'Déconnecté.',
  },
  de: {
    title: 'Ihre verbundenen Anwendungen',
    empty: 'Keine Anwendung ist mit Ihnen verbunden.',
    consents: 'Einwilligungen',
    authorities: 'Agenten-Befugnisse',
    delegations: 'Vertretungen',
    oauth: 'Anmeldefreigaben',
    revoke: 'Trennen',
    revokeAll: 'Alle trennen',
    done: 'Getrennt.',
  },
  es: {
    title: 'Sus aplicaciones conectadas',
    empty: 'Ninguna aplicación está conectada a usted.',
    consents: 'consentimientos',
    authorities: 'autoridades de agente',
    delegations: 'delegaciones',
    oauth: 'autorizaciones de acceso',
    revoke: 'Desconectar',
    revokeAll: 'Desconectar todo',
    done: 'Desconectado.',
  },
  pt: {
    title: 'As suas aplicações ligadas',
    empty: 'Nenhuma aplicação está ligada a si.',
    consents: 'consentimentos',
    authorities: 'autoridades de agente',
    delegations: 'delegações',
    oauth: 'autorizações de acesso',
    revoke: 'Desligar',
    revokeAll: 'Desligar tudo',
    done: 'Desligado.',
  },
  ja: {
    title: '連携中のアプリケーション',
    empty: '連携中のアプリケーションはありません。',
    consents: '同意',
    authorities: 'エージェント権限',
    delegations: '委任',
    oauth: 'サインイン許可',
    revoke: '連携を解除',
    revokeAll: 'すべて解除',
    done: '解除しました。',
  },
} satisfies Record<PeopleLocale, Record<string, string>>;

/**
 * `GET /connections`: the signed-in person's connected applications, each with what connects it
 * and a disconnect button; the buttons post JSON to this origin (`/connections/:application_id/revoke`,
 * `/connections/revoke_all`), which refuses other origins, like the other hosted forms.
 */
export function renderConnectionsPage(model: { locale: PeopleLocale; nonce: string; connections: readonly Connection[] }): string {
  const w = WORDS[model.locale];
  const count = (n: number, label: string) => (n > 0 ? `${n} ${escapeHtml(label)}` : '');
  const rows = model.connections.length
    ? `<ul class="items" id="connections">${model.connections
        .map((c) => {
          const parts = [
            count(c.consents.length, w.consents),
            count(c.authorities.length, w.authorities),
            count(c.delegations.length, w.delegations),
            count(c.oauthGrants.length, w.oauth),
          ].filter(Boolean);
          return `<li data-application-id="${escapeHtml(c.applicationId)}"><span>${escapeHtml(c.applicationName || c.applicationId)}<br><small>${parts.join(' · ')}</small></span><button type="button" class="secondary" data-revoke="${escapeHtml(c.applicationId)}">${escapeHtml(w.revoke)}</button></li>`;
        })
        .join('')}</ul><p><button type="button" class="secondary" data-revoke="">${escapeHtml(w.revokeAll)}</button></p>`
    : `<p id="connections">${escapeHtml(w.empty)}</p>`;
  return plainPage({
    locale: model.locale,
    nonce: model.nonce,
    title: w.title,
    style:
      'body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}ul.items{list-style:none;padding:0}ul.items li{display:flex;justify-content:space-between;align-items:center;padding:.75rem 0;border-bottom:1px solid #ddd}button{padding:.5rem 1rem}',
    main: `${rows}\n<p id="connections-status" role="status"></p>`,
    script: `for (const b of document.querySelectorAll('button[data-revoke]')) b.addEventListener('click', async () => {
  for (const other of document.querySelectorAll('button[data-revoke]')) other.disabled = true;
  const id = b.dataset.revoke;
  const res = await fetch(id ? '/connections/' + encodeURIComponent(id) + '/revoke' : '/connections/revoke_all', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: '{}' });
  document.getElementById('connections-status').textContent = res.ok ? ${JSON.stringify(w.done)} : String(res.status);
  if (res.ok) location.reload();
});`,
  });
}
