import { regionVerdict } from './region-guard';
import { roundRobin } from './install-proxy';
import { parseServiceUrls, serviceForPath } from './route-table';

describe('residency verdict (spec: Authentication rule 11; architecture: Regions and residency)', () => {
  it.each([
    ['GET', '/api/v1/applications/tp_eu_abcdefghijklmnopqrst', 'us', { action: 'misdirected', homeRegion: 'eu' }],
    ['POST', '/api/v1/grants/ath_ap_abcdefghijklmnopqrstuvwx/attestation', 'us', { action: 'misdirected', homeRegion: 'ap' }],
    ['GET', '/api/v1/inbox?application_id=tp_us_abcdefghijklmnopqrst', 'eu', { action: 'misdirected', homeRegion: 'us' }],
    ['GET', '/api/v1/applications/tp_eu_abc%5Fdef', 'us', { action: 'misdirected', homeRegion: 'eu' }],
    ['GET', '/api/v1/agents/agent_eu_abcdefghijklmnopqrst/capabilities', 'us', { action: 'redirect', homeRegion: 'eu' }],
    ['HEAD', '/api/v1/agents/agent_eu_abcdefghijklmnopqrst/capabilities', 'us', { action: 'redirect', homeRegion: 'eu' }],
    ['OPTIONS', '/api/v1/agents/agent_eu_abcdefghijklmnopqrst/capabilities', 'us', { action: 'misdirected', homeRegion: 'eu' }],
    ['GET', '/api/v1/applications/tp_us_abcdefghijklmnopqrst', 'us', { action: 'local' }],
    ['GET', '/api/v1/applications/tp_dev_abcdefghijklmnopqrst', 'eu', { action: 'local' }],
    ['GET', '/api/v1/me', 'ap', { action: 'local' }],
    ['GET', '/decisions/dts_abc', 'ap', { action: 'local' }],
    ['GET', '/.well-known/jwks.json', 'us', { action: 'local' }],
    ['GET', '/api/v1/agents/agent_us_abcdefghijklmnopqrst/capabilities', 'us', { action: 'local' }],
    // Read as the URL parser reads them: dot segments resolved, a leading `//` names a host, queries read.
    ['GET', '/api/v1/tp_eu_abcdefghijklmnopqrst/../me', 'us', { action: 'local' }],
    ['GET', '/api/v1/me/./tp_eu_abcdefghijklmnopqrst', 'us', { action: 'misdirected', homeRegion: 'eu' }],
    ['GET', '//tp_eu_abcdefghijklmnopqrst/api/v1/me', 'us', { action: 'local' }],
    ['GET', '/api/v1/agents/agent_eu_abcdefghijklmnopqrst/capabilities?x=1', 'us', { action: 'redirect', homeRegion: 'eu' }],
    [
      'GET',
      '/api/v1/agents/agent_us_abcdefghijklmnopqrst/capabilities?a=tp_ap_abcdefghijklmnopqrst',
      'us',
      { action: 'redirect', homeRegion: 'ap' },
    ],
  ])('%s %s in %s → %j', (method, url, region, verdict) => {
    expect(regionVerdict(method, url, region)).toEqual(verdict);
  });

  it('survives a malformed percent-encoding without throwing', () => {
    expect(regionVerdict('GET', '/api/v1/applications/%E0%A4%A', 'us')).toEqual({ action: 'local' });
  });
});

describe('route table', () => {
  it.each([
    ['/api/v1/me', 'decision-gateway'],
    ['/api/v1/delegations/dlg_us_x/accept', 'decision-gateway'],
    ['/oauth/par', 'decision-gateway'],
    ['/oauth2/par', 'decision-gateway'],
    ['/oauth/interaction/abc', 'decision-gateway'],
    ['/oauth/device', 'decision-gateway'],
    ['/.well-known/openid-configuration', 'decision-gateway'],
    ['/api/v1/applications/tp_us_x/allowed_origins', 'decision-gateway'],
    ['/api/v1/applications/tp_us_x/consent_status', 'consent-records'],
    ['/api/v1/applications/tp_us_x/webhook_subscriptions', 'webhook-dispatcher'],
    ['/api/v1/decisions', 'decision-gateway'],
    ['/decisions/dts_x/embed', 'decision-gateway'],
    ['/api/v1/consent_records/imports', 'consent-records'],
    ['/api/v1/flows/flw_us_x', 'consent-records'],
    ['/api/v1/policies/pol_us_x/activate', 'consent-records'],
    ['/api/v1/data_requests', 'decision-gateway'],
    ['/api/v1/data_offers/doff_us_x/accept', 'consent-records'],
    ['/api/v1/data_licenses', 'consent-records'],
    ['/api/v1/mailing_audiences/mla_x/syncs', 'consent-records'],
    ['/api/v1/mailing_audience_webhooks/mlwh_x', 'consent-records'],
    ['/api/v1/consent_records/form_integrations/x/intakes', 'consent-records'],
    ['/capture/v1/form_integrations/x/webhook', 'consent-records'],
    ['/capture/v1/fields/flw_us_x', 'consent-records'],
    ['/api/v1/grants', 'oap-authorizer'],
    ['/api/v1/authorities/proposals', 'oap-authorizer'],
    ['/authorities/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde', 'decision-gateway'],
    ['/api/v1/oap/version', 'oap-authorizer'],
    ['/api/v1/mcp_servers', 'oap-authorizer'],
    ['/mcp/v1/agent', 'oap-authorizer'],
    ['/.well-known/mcp-configuration', 'oap-authorizer'],
    ['/.well-known/oauth-protected-resource/mcp/v1/agent', 'oap-authorizer'],
    ['/oauth/token/exchange', 'decision-gateway'],
    ['/api/v1/oap/attestations', 'oversight-witness'],
    ['/api/v1/approval_receipts/apr_x', 'receipts'],
    ['/.well-known/jwks.json', 'receipts'],
    ['/schemas/receipt/v2/record.json', 'receipts'],
    ['/.well-known/witness-configuration', 'audit-chain'],
    // The router keeps no database: the register lives beside the audit chain in both modes.
    ['/api/v1/transfer_register', 'audit-chain'],
    ['/api/v1/transfer_register/evidence_package', 'audit-chain'],
    ['/api/v1/residency_posture', 'audit-chain'],
    ['/.well-known/openapi', 'decision-gateway'],
  ])('%s belongs to %s', (path, service) => {
    expect(serviceForPath(path)).toBe(service);
  });

  it('knows no owner for an unknown path', () => {
    expect(serviceForPath('/wp-admin')).toBeUndefined();
  });

  it('parses SERVICE_URLS and refuses unknown service names', () => {
    expect(parseServiceUrls('receipts=http://r:8080/,audit-chain=http://a:8080')).toEqual({
      receipts: ['http://r:8080'],
      'audit-chain': ['http://a:8080'],
    });
    expect(() => parseServiceUrls('billing=http://b')).toThrow(/billing/);
  });

  it('keeps every instance of a service named more than once, once each', () => {
    expect(parseServiceUrls('receipts=http://r1:8080,receipts=http://r2:8080/,receipts=http://r1:8080,audit-chain=http://a:8080')).toEqual({
      receipts: ['http://r1:8080', 'http://r2:8080'],
      'audit-chain': ['http://a:8080'],
    });
  });

  it('takes the instances of a service in turn, each service on its own turn', () => {
    const next = roundRobin({ receipts: ['http://r1', 'http://r2'], 'audit-chain': 'http://a', 'oap-authorizer': [] });
    expect(Array.from({ length: 5 }, () => next('receipts'))).toEqual(['http://r1', 'http://r2', 'http://r1', 'http://r2', 'http://r1']);
    expect([next('audit-chain'), next('audit-chain')]).toEqual(['http://a', 'http://a']);
    expect(next('oap-authorizer')).toBeUndefined();
    expect(next('decision-gateway')).toBeUndefined();
  });
});
