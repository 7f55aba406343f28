import type { FlowPurpose, FlowVersion } from '../flows/flow';
import { receiptDeliveryMode, revocationChannel, sessionChannel, sessionIdempotencyKey, sessionRecordDraft } from './session-record';

const purpose = (key: string, mechanism: FlowPurpose['mechanism'] = 'consent'): FlowPurpose => ({
  key,
  label: key,
  description: '',
  mechanism,
  required: false,
});
const flow = {
  flowId: 'flw_us_abcdefghijklmnopqrst',
  version: 3,
  terms: { purposes: [purpose('newsletter'), purpose('offers'), purpose('account', 'contract')] },
} as unknown as FlowVersion;
const token = `dts_${'a'.repeat(43)}`;
const decision = {
  applicationId: 'tp_us_app',
  sessionToken: token,
  flowId: flow.flowId,
  flowVersion: 3,
  userIdentifier: 'user-42',
  grantedPurposes: ['newsletter', 'account'],
  decidedAt: new Date('2026-05-01T12:00:00.000Z'),
  deliveryMode: 'embed',
  principalBinding: 'api_token',
};
const granted = { decision: 'granted', default_checked: false, mandatory: false };
const declined = { decision: 'declined', default_checked: false, mandatory: false };

/** Spec: What the service does 1–4 (a session decision is recorded like any other), receipt collection_channel and delivery_mode. */
describe('the record of a decision session', () => {
  it('records every purpose of the flow version: the listed ones granted, the others declined', () => {
    const draft = sessionRecordDraft(decision, flow);
    expect(draft).toMatchObject({
      applicationId: 'tp_us_app',
      flow,
      subject: { email: null, external_id: 'user-42' },
      decisions: { newsletter: granted, offers: declined, account: granted },
      capturedAt: decision.decidedAt,
      noticeDigest: null,
      channel: 'embedded',
      deliveryMode: 'embed',
    });
    expect(sessionRecordDraft({ ...decision, grantedPurposes: [] }, flow).decisions).toEqual({
      newsletter: declined,
      offers: declined,
      account: declined,
    });
  });

  it('keys the record by a digest of the session token, never the token itself', () => {
    const key = sessionIdempotencyKey(token);
    expect(key).toMatch(/^session:[0-9a-f]{64}$/);
    expect(key).not.toContain(token.slice(4));
    expect(sessionRecordDraft(decision, flow).idempotencyKey).toBe(key);
    expect(sessionIdempotencyKey(`dts_${'b'.repeat(43)}`)).not.toBe(key);
  });

  it('names the channel and delivery mode in the receipt vocabulary', () => {
    expect(['embed', 'popup', 'redirect', 'direct'].map((m) => [sessionChannel(m), receiptDeliveryMode(m)])).toEqual([
      ['embedded', 'embed'],
      ['hosted', 'popup'],
      ['hosted', 'redirect'],
      ['hosted', 'link'],
    ]);
    expect(receiptDeliveryMode('')).toBeUndefined();
    expect(sessionRecordDraft({ ...decision, deliveryMode: '' }, flow)).toMatchObject({ channel: 'hosted', deliveryMode: null });
  });

  it("withdraws in the person's own records when they revoked, else as the organisation", () => {
    expect([revocationChannel('principal'), revocationChannel('application'), revocationChannel('')]).toEqual([
      'own_records',
      'organisation',
      'unspecified',
    ]);
  });
});
