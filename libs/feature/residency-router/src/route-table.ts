import { SERVICE_NAMES, type ServiceName } from '@svc/config';

export { SERVICE_NAMES, type ServiceName };

/**
 * Which service owns a path. First match wins, so narrower paths come before the families that
 * contain them (consent_status lives under /applications but belongs to consent-records).
 */
export const ROUTE_TABLE: ReadonlyArray<{ match: RegExp; service: ServiceName }> = [
  { match: /^\/api\/v1\/applications\/[^/]+\/consent_status(\/|$)/, service: 'consent-records' },
  { match: /^\/api\/v1\/applications\/[^/]+\/webhook_subscriptions(\/|$)/, service: 'webhook-dispatcher' },
  // The Shared Signals transmitter: its metadata and stream management.
  { match: /^\/api\/v1\/ssf(\/|$)|^\/\.well-known\/ssf-configuration$/, service: 'webhook-dispatcher' },
  { match: /^\/api\/v1\/(flows|consent_records|mailing_audiences|mailing_audience_webhooks)(\/|$)/, service: 'consent-records' },
  // Protect: data policies, licences and offers (data subject requests are decision-gateway's, which owns people).
  { match: /^\/api\/v1\/(policies|data_licenses|data_offers)(\/|$)/, service: 'consent-records' },
  // The cross-border directory: each region answers from its own copy of it.
  { match: /^\/api\/v1\/cross_border(\/|$)/, service: 'consent-records' },
  // Capture commit lives in consent-records although it sits under the decisions path family.
  { match: /^\/api\/v1\/decisions\/[^/]+\/authorize$/, service: 'consent-records' },
  { match: /^\/capture\/v1\//, service: 'consent-records' },
  { match: /^\/api\/v1\/oap\/attestations(\/|$)|^\/api\/v1\/trusted_attesters(\/|$)/, service: 'oversight-witness' },
  {
    match:
      /^\/api\/v1\/(grants|agents|agent_identities|application_agents|authorities|mcp_servers|vouches|trust_scores)(\/|$)|^\/api\/v1\/oap\/(version|escalations|revocations)(\/|$)|^\/mcp\//,
    service: 'oap-authorizer',
  },
  // Capability manifest versions are oap-authorizer's, under the audit log's transparency path.
  { match: /^\/\.well-known\/transparency\/agents\/[^/]+\/manifests(\/|$)/, service: 'oap-authorizer' },
  {
    match:
      /^\/\.well-known\/(oap-attestation|oap-revocation-list|oap-credentials|svc-verify|svc-decode|mcp-configuration|oauth-protected-resource)(\/|$)/,
    service: 'oap-authorizer',
  },
  // postMessage v2 schemas and the browser SDK (hosted pages) — before the receipts rule that owns /schemas/.
  { match: /^\/schemas\/postmessage\/|^\/cdn\//, service: 'decision-gateway' },
  {
    match: /^\/api\/v1\/(consent_receipts|authorization_receipts|approval_receipts|disclosure_receipts)(\/|$)|^\/schemas\//,
    service: 'receipts',
  },
  {
    match:
      /^\/\.well-known\/(jwks\.json|did\.json|openid-credential-issuer)$|^\/\.well-known\/(credential-status|oauth-authorization-server)\//,
    service: 'receipts',
  },
  // The Verify surface's credentials and presentations (issuer, status lists, verifier).
  { match: /^\/api\/v1\/(credentials|presentations)(\/|$)/, service: 'receipts' },
  { match: /^\/api\/v1\/audit(\/|$)|^\/\.well-known\/(witness-configuration|transparency)(\/|$)/, service: 'audit-chain' },
  // The transfer register and residency posture: hosted by audit-chain (every crossing is an audit entry).
  { match: /^\/api\/v1\/(transfer_register|residency_posture)(\/|$)/, service: 'audit-chain' },
  // Comply: clean rooms compare consented audiences (consent-records); evidence packages bundle the audit trail (audit-chain).
  { match: /^\/api\/v1\/clean_rooms(\/|$)/, service: 'consent-records' },
  { match: /^\/api\/v1\/evidence_packages(\/|$)/, service: 'audit-chain' },
  // Hosted pages, among them /authorities/:proposal_token (the API's /api/v1/authorities is oap-authorizer's),
  // /approvals/:approval_token (an approver's signed approval URL) and the retired operator inbox URL
  // /oap/escalations, which redirects to the decision page.
  {
    match:
      /^\/api\/v1\/(applications|accounts|me|decisions|consent_sessions|inbox|device_links|delegations|agreements|multi_party_agreements|collaborations|data_requests|modules|governance|trust_pairings|connections)(\/|$)|^\/(decisions|accord|inbox|oauth|oauth2|people|authorities|approvals|connections)(\/|$)|^\/oap\/escalations$/,
    service: 'decision-gateway',
  },
  { match: /^\/\.well-known\/(openid-configuration|openapi|api-catalog)(\/|$)/, service: 'decision-gateway' },
];

/** The service owning `path` (no query string), or undefined for an unknown path. */
export function serviceForPath(path: string): ServiceName | undefined {
  return ROUTE_TABLE.find((route) => route.match.test(path))?.service;
}

/**
 * Parses `name=url,name=url` into a service → base URLs map, rejecting unknown names. A service
 * named more than once has several instances (as the replicas behind a Kubernetes Service), which
 * the router takes in turn.
 */
export function parseServiceUrls(value: string): Partial<Record<ServiceName, string[]>> {
  const result: Partial<Record<ServiceName, string[]>> = {};
  for (const pair of value.split(',').filter(Boolean)) {
    const [name, url] = pair.split('=', 2);
    if (!name || !url || !(SERVICE_NAMES as readonly string[]).includes(name))
      throw new Error(`SERVICE_URLS entry "${pair}" is not <service>=<url>`);
    const base = url.replace(/\/$/, '');
    const urls = (result[name as ServiceName] ??= []);
    if (!urls.includes(base)) urls.push(base);
  }
  return result;
}
