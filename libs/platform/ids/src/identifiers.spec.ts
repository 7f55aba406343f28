import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ID_FORMATS, isIdOf, newApiToken, newApprovalSessionToken, newId, newRegionalId, parseId, regionSegmentOf } from './identifiers';

describe('identifiers (spec: Identifiers table)', () => {
  it.each([
    ['application', 'tp'],
    ['flow', 'flw'],
    ['delegation_grant', 'dlg'],
    ['oap_grant', 'ath'],
    ['agent', 'agent'],
    ['trusted_attester_token', 'tat'],
    ['attestation', 'att'],
    ['capability_version', 'tpcv'],
    ['escalation', 'esc'],
    ['form_integration', 'fint'],
    ['mailing_audience', 'mla'],
    ['person', 'usr'],
    ['person_link', 'plk'],
    ['oauth_client', 'oac'],
    ['vouch', 'vch'],
    ['credential', 'vcr'],
    ['agreement', 'agr'],
    ['collaboration', 'col'],
    ['data_request', 'dsr'],
    ['trust_pairing', 'tpr'],
    ['change_request', 'chg'],
    ['clean_room', 'clr'],
    ['evidence_package', 'evp'],
  ] as const)('%s ids carry the prefix %s and the region, and parse back to both', (kind, prefix) => {
    const id = newRegionalId(kind, 'eu');
    expect(id.startsWith(`${prefix}_eu_`)).toBe(true);
    expect(parseId(id)).toEqual({ kind, region: 'eu' });
    expect(regionSegmentOf(id)).toBe('eu');
  });

  it.each([
    ['decision_session_token', 'dts_'],
    ['publishable_key_test', 'pk_test_'],
    ['publishable_key_live', 'pk_live_'],
    ['api_token_record', 'api_token_'],
    ['agent_token', 'ra_agent_'],
    ['witness_receipt', 'wrec_'],
    ['audit_record', 'audit_rec_'],
    ['agreement_party', 'pty_'],
    ['agreement_amendment', 'amd_'],
  ] as const)('%s ids start with %s and parse without a region', (kind, prefix) => {
    const id = newId(kind);
    expect(id.startsWith(prefix)).toBe(true);
    expect(parseId(id)).toEqual({ kind });
  });

  it('approval session tokens are 43 URL-safe base64 characters', () => {
    expect(newApprovalSessionToken()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('API tokens are opaque, high-entropy and carry no prefix', () => {
    const token = newApiToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(parseId(token)).toBeUndefined();
  });

  it('never repeats: 10 000 application ids are distinct', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newRegionalId('application', 'us')));
    expect(ids.size).toBe(10_000);
  });

  it('does not read tpcv_ as tp_ and rejects unknown regions and malformed bodies', () => {
    expect(parseId(newRegionalId('capability_version', 'ap'))?.kind).toBe('capability_version');
    expect(parseId('tp_xx_abcdefghijklmnopqrst')).toBeUndefined();
    expect(parseId('tp_us_ABC')).toBeUndefined();
    expect(isIdOf('application', 'tp_us_short')).toBe(false);
  });

  it('reads the region segment of a malformed id so routing never forwards it', () => {
    expect(regionSegmentOf('tp_eu_x')).toBe('eu');
    expect(regionSegmentOf('tp_eu_')).toBeUndefined();
    expect(regionSegmentOf('hello')).toBeUndefined();
  });

  it('registers every regional prefix the code base mints, so the router homes all of them', () => {
    const root = join(__dirname, '..', '..', '..', '..');
    const minted = new Set<string>();
    const visit = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (name === 'node_modules' || name === 'gen') continue;
        if (statSync(path).isDirectory()) visit(path);
        else if (name.endsWith('.ts') && !name.endsWith('spec.ts')) {
          for (const match of readFileSync(path, 'utf8').matchAll(/`([a-z]+)_\$\{[^}`]*(?:region|REGION)[^}`]*\}_/g)) minted.add(match[1]!);
        }
      }
    };
    visit(join(root, 'libs'));
    visit(join(root, 'apps'));
    const registered = new Set<string>(
      Object.values(ID_FORMATS)
        .filter((f) => f.regional)
        .map((f) => f.prefix),
    );
    expect([...minted].filter((prefix) => !registered.has(prefix))).toEqual([]);
  });
});
