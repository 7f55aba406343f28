import { createHash } from 'node:crypto';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http } from '@svc/testing';
import { compactDecrypt, compactVerify, createLocalJWKSet, exportJWK, generateKeyPair, type JSONWebKeySet, type KeyLike } from 'jose';
import { DataSource as DataSourceToken } from 'typeorm';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const DAY = 86_400_000;

jest.setTimeout(120_000);

interface Transfer {
  id: string;
  object: string;
  record_id: string;
  recipient: { party_id: string; name: string; country: string };
  encryption: { alg: string; enc: string; kid: string };
  jwe: string;
  data_sha256: string;
  transfer_register_id: string | null;
  receipt: string;
}

/**
 * Protect, secure transfers (issue 23, Deliver 4): a person's data sent to a recipient named in an
 * accepted data licence, encrypted to the recipient's public key (JWE), written to the transfer
 * register first when it crosses a border (refused without a lawful basis), with a signed receipt
 * for the person. Region eu (DE); one recipient in DE, one in US.
 */
describe('secure transfers under an accepted data licence (eu region)', () => {
  const clock = new FakeClock('2026-10-01T08:00:00.000Z');
  let stack: TestRegions;
  let eu: string;
  let app: { id: string; token: string };
  let licenseId: string;
  let offerId: string;
  let recordId: string;
  let labKey: KeyLike;
  let usKey: KeyLike;
  const data = { email: 'ada@example.com', usage_history: [{ day: '2026-09-30', minutes: 42 }] };

  const post = (path: string, json: Record<string, unknown> = {}, token = app.token) =>
    http('POST', `${eu}${path}`, { headers: auth(token), json });
  const transfer = (json: Record<string, unknown>) =>
    post(`/api/v1/data_licenses/${licenseId}/transfers`, {
      offer_id: offerId,
      purpose: 'research',
      data_category: 'usage_history',
      data,
      ...json,
    });
  const rows = async (sql: string): Promise<number> =>
    ((await stack.process.eu.app.get(DataSourceToken).query(sql)) as Array<{ n: number }>)[0]!.n;

  async function acceptedOffer(subject: Record<string, string>): Promise<{ offerId: string; recordId: string }> {
    const draft = await post('/api/v1/data_offers', { license_id: licenseId, subject });
    await post(`/api/v1/data_offers/${draft.body.id as string}/send`);
    const accepted = await post(`/api/v1/data_offers/${draft.body.id as string}/accept`, { actor: 'person' });
    expect(accepted.body.state).toBe('accepted');
    return { offerId: draft.body.id as string, recordId: accepted.body.record_id as string };
  }

  beforeAll(async () => {
    stack = await startRegions('protect_transfers', { clock, regions: ['eu'], env: { RETENTION_SWEEP_INTERVAL_MS: '0' } });
    eu = stack.url.eu;
    const created = await stack.process.eu.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Acme research', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken };
    const flow = await post('/api/v1/flows', {
      name: 'Research data',
      locale: 'en-GB',
      presentation: { title: 'Share your data for research' },
      policy_url: 'https://acme.example/privacy',
      purposes: [{ key: 'research', label: 'Research', description: 'Studies of usage' }],
      consent_duration: 'P2Y',
    });
    expect((await post(`/api/v1/flows/${flow.body.id as string}/activate`)).status).toBe(200);
    const lab = await generateKeyPair('ECDH-ES+A256KW', { crv: 'P-256' });
    const us = await generateKeyPair('ECDH-ES+A256KW', { crv: 'X25519' });
    labKey = lab.privateKey;
    usKey = us.privateKey;
    const license = await post('/api/v1/data_licenses', {
      name: 'Research licence',
      flow_id: flow.body.id,
      purposes: ['research'],
      data_categories: ['usage_history'],
      duration: 'P1Y',
      recipients: [
        {
          party_id: 'uni-lab',
          name: 'University lab',
          public_jwk: { ...(await exportJWK(lab.publicKey)), kid: 'lab-2026' },
          country: 'DE',
        },
        { party_id: 'us-lab', name: 'US lab', public_jwk: await exportJWK(us.publicKey), country: 'US' },
        { party_id: 'no-key', name: 'Keyless partner' },
      ],
      offer_window: 'P7D',
    });
    expect(license.status).toBe(201);
    expect((license.body.terms as { recipients: unknown[] }).recipients[0]).toMatchObject({
      party_id: 'uni-lab',
      country: 'DE',
      public_jwk: { kty: 'EC', crv: 'P-256', kid: 'lab-2026' },
    });
    licenseId = license.body.id as string;
    ({ offerId, recordId } = await acceptedOffer({ email: 'ada@example.com' }));
  });
  afterAll(() => stack?.close());

  it('refuses a licence recipient key with a private member or of the wrong kind', async () => {
    const { privateKey } = await generateKeyPair('ECDH-ES+A256KW', { crv: 'P-256', extractable: true });
    const bad = await post('/api/v1/data_licenses', {
      name: 'x',
      flow_id: 'flw_eu_abcdefghijklmnopqrst',
      purposes: ['research'],
      data_categories: ['c'],
      duration: 'P1Y',
      recipients: [{ party_id: 'p', name: 'P', public_jwk: await exportJWK(privateKey) }],
    });
    expect([bad.status, bad.body.reason_code]).toEqual([422, 'validation_failed']);
    expect(JSON.stringify(bad.body)).toContain('public_jwk');
  });

  it('sends to a recipient in the region: a JWE only its key opens, no register entry, a receipt signed by the region key', async () => {
    const res = await transfer({ recipient: 'uni-lab' });
    expect(res.status).toBe(201);
    const body = res.body as unknown as Transfer;
    expect(body).toMatchObject({
      object: 'data_transfer',
      record_id: recordId,
      recipient: { party_id: 'uni-lab', name: 'University lab', country: 'DE' },
      encryption: { alg: 'ECDH-ES+A256KW', enc: 'A256GCM', kid: 'lab-2026' },
      transfer_register_id: null,
    });
    expect(body.id).toMatch(/^dtx_eu_[a-z2-7]{20}$/);
    const opened = await compactDecrypt(body.jwe, labKey);
    expect(JSON.parse(new TextDecoder().decode(opened.plaintext))).toEqual(data);
    expect(opened.protectedHeader).toMatchObject({ svc_transfer_id: body.id, cty: 'application/json' });
    await expect(compactDecrypt(body.jwe, usKey)).rejects.toThrow();
    // Nothing of the data is stored in clear.
    expect(
      await rows(`SELECT count(*)::int AS n FROM consent_records.data_transfers WHERE jwe LIKE '%ada@%' OR receipt LIKE '%ada@%'`),
    ).toBe(0);

    const jwks = (await http<JSONWebKeySet>('GET', `${eu}/.well-known/jwks.json`)).body;
    const verified = await compactVerify(body.receipt, createLocalJWKSet(jwks));
    expect(verified.protectedHeader).toMatchObject({ alg: 'EdDSA', typ: 'svc-transfer-receipt+jws' });
    const claims = JSON.parse(new TextDecoder().decode(verified.payload)) as Record<string, unknown>;
    expect(claims).toMatchObject({
      transfer_id: body.id,
      record_id: recordId,
      offer_id: offerId,
      license_id: licenseId,
      recipient: { party_id: 'uni-lab', country: 'DE' },
      from_country: 'DE',
      transfer_register_id: null,
      data_sha256: body.data_sha256,
    });
    expect(claims.jwe_sha256).toBe(createHash('sha256').update(body.jwe).digest('hex'));

    const read = await http('GET', `${eu}/api/v1/data_licenses/${licenseId}/transfers/${body.id}`, { headers: auth(app.token) });
    expect(read.body).toEqual(res.body);
    const list = await http<{ data: Transfer[] }>('GET', `${eu}/api/v1/data_licenses/${licenseId}/transfers`, { headers: auth(app.token) });
    expect(list.body.data.map((t) => t.id)).toContain(body.id);
  });

  it('a recipient in another country: refused without a lawful basis (nothing recorded, nothing sent), else written to the register first', async () => {
    const registerRows = () => rows(`SELECT count(*)::int AS n FROM residency.transfers`);
    const sentRows = () => rows(`SELECT count(*)::int AS n FROM consent_records.data_transfers WHERE recipient_party_id = 'us-lab'`);
    const before = await registerRows();
    const refused = await transfer({ recipient: 'us-lab' });
    expect([refused.status, refused.body.reason_code, (refused.body.detail as { field?: string }).field]).toEqual([
      422,
      'lawful_basis_required',
      'lawful_basis',
    ]);
    expect([await registerRows(), await sentRows()]).toEqual([before, 0]);

    const res = await transfer({ recipient: 'us-lab', lawful_basis: 'standard_contractual_clauses' });
    expect(res.status).toBe(201);
    const body = res.body as unknown as Transfer;
    expect(body.transfer_register_id).toMatch(/^xfr_[a-z2-7]{24}$/);
    expect(JSON.parse(new TextDecoder().decode((await compactDecrypt(body.jwe, usKey)).plaintext))).toEqual(data);

    const register = await http<{ data: Array<Record<string, unknown>> }>(
      'GET',
      `${eu}/api/v1/transfer_register?transfer_case=licensed_recipient`,
      { headers: auth(app.token) },
    );
    expect(register.status).toBe(200);
    expect(register.body.data).toEqual([
      expect.objectContaining({
        id: body.transfer_register_id,
        from_country: 'DE',
        to_country: 'US',
        lawful_basis: 'standard_contractual_clauses',
        record_ids: [recordId],
        reference: `data-transfer:${body.id}`,
      }),
    ]);
    // The register entry was written before the transfer row.
    const [order] = (await stack.process.eu.app
      .get(DataSourceToken)
      .query(
        `SELECT (SELECT recorded_at FROM residency.transfers WHERE id = $1) <= t.created_at AS first FROM consent_records.data_transfers t WHERE t.id = $2`,
        [body.transfer_register_id, body.id],
      )) as Array<{ first: boolean }>;
    expect(order!.first).toBe(true);
    // The person's consent receipt now lists where their data is processed.
    const receipt = await http<{ pii_processing: Record<string, unknown> }>('GET', `${eu}/api/v1/consent_receipts/${recordId}`, {
      headers: auth(app.token),
    });
    expect(receipt.body.pii_processing.processing_locations).toEqual([
      { country: 'US', transfer_basis: 'standard_contractual_clauses', transfer_register_id: body.transfer_register_id },
    ]);
  });

  it('refuses a recipient the deal does not name, a recipient without a key, an offer not accepted or expired, and an ended term', async () => {
    const notNamed = await transfer({ recipient: 'broker' });
    expect([notNamed.status, notNamed.body.reason_code, (notNamed.body.detail as { reason?: string }).reason]).toEqual([
      422,
      'transfer_not_covered',
      'recipient_not_agreed',
    ]);
    const keyless = await transfer({ recipient: 'no-key' });
    expect([keyless.status, keyless.body.reason_code]).toEqual([422, 'recipient_key_missing']);
    const otherCategory = await transfer({ recipient: 'uni-lab', data_category: 'location' });
    expect((otherCategory.body.detail as { reason?: string }).reason).toBe('data_category_not_agreed');

    const draft = await post('/api/v1/data_offers', { license_id: licenseId, subject: { email: 'late@example.com' } });
    await post(`/api/v1/data_offers/${draft.body.id as string}/send`);
    const open = await transfer({ recipient: 'uni-lab', offer_id: draft.body.id });
    expect([open.status, (open.body.detail as { reason?: string }).reason]).toEqual([422, 'deal_not_accepted']);
    clock.advance(8 * DAY);
    const expired = await transfer({ recipient: 'uni-lab', offer_id: draft.body.id });
    expect([expired.status, (expired.body.detail as { reason?: string }).reason]).toEqual([422, 'deal_not_accepted']);

    clock.advance(400 * DAY);
    const ended = await transfer({ recipient: 'uni-lab' });
    expect([ended.status, (ended.body.detail as { reason?: string }).reason]).toEqual([422, 'deal_term_ended']);
    expect(await rows(`SELECT count(*)::int AS n FROM consent_records.data_transfers WHERE offer_id = '${draft.body.id as string}'`)).toBe(
      0,
    );
  });

  it('keeps transfers to their application', async () => {
    const other = await stack.process.eu.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Other', environment: 'development' }));
    const list = await http('GET', `${eu}/api/v1/data_licenses/${licenseId}/transfers`, { headers: auth(other.apiToken) });
    expect([list.status, list.body.reason_code]).toEqual([404, 'data_license_not_found']);
    const send = await post(
      `/api/v1/data_licenses/${licenseId}/transfers`,
      { offer_id: offerId, recipient: 'uni-lab', purpose: 'research', data_category: 'usage_history', data },
      other.apiToken,
    );
    expect([send.status, send.body.reason_code]).toEqual([404, 'data_license_not_found']);
    const missing = await http('GET', `${eu}/api/v1/data_licenses/${licenseId}/transfers/dtx_eu_abcdefghijklmnopqrst`, {
      headers: auth(app.token),
    });
    expect([missing.status, missing.body.reason_code]).toEqual([404, 'data_transfer_not_found']);
  });
});
