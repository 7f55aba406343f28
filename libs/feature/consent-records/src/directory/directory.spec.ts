import type { ConsentRecord, Withdrawal } from '../records/record';
import { directoryStatus, initialsOf, referenceOf, subjectRef } from './directory';

const key = Buffer.alloc(32, 9);
const record = (id: string, decisions: Record<string, 'granted' | 'declined'>, expiresAt: Date | null = null): ConsentRecord => ({
  id,
  applicationId: 'tp_us_abcdefghijklmnopqrst',
  flowId: 'flw_us_abcdefghijklmnopqrst',
  flowVersion: 1,
  subject: { email: null, external_id: 'c-1' },
  decisions: Object.fromEntries(
    Object.entries(decisions).map(([p, decision]) => [p, { decision, default_checked: false, mandatory: false }]),
  ) as ConsentRecord['decisions'],
  noticeDigest: null,
  channel: 'controller_attested' as ConsentRecord['channel'],
  capturedAt: new Date('2026-11-01T00:00:00Z'),
  recordedAt: new Date('2026-11-01T00:00:00Z'),
  expiresAt,
  idempotencyKey: null,
  previousRecordId: null,
  withdrawnPurposes: [],
});

describe('the cross-border directory: what crosses about a person', () => {
  it('identifies a person by a keyed hash of application and reference, never by the reference', () => {
    const ref = subjectRef(key, 'tp_us_a', { external_id: 'customer-42' });
    expect(ref).toMatch(/^[0-9a-f]{64}$/);
    expect(ref).not.toContain('customer-42');
    expect(subjectRef(key, 'tp_us_a', { external_id: 'customer-42' })).toBe(ref);
    expect(subjectRef(key, 'tp_us_b', { external_id: 'customer-42' })).not.toBe(ref);
    expect(subjectRef(Buffer.alloc(32, 1), 'tp_us_a', { external_id: 'customer-42' })).not.toBe(ref);
    expect(subjectRef(key, 'tp_us_a', { email: 'Ada@Example.com' })).toBe(subjectRef(key, 'tp_us_a', { email: 'ada@example.com' }));
  });

  it('matches records as they are matched: external id first, else the lower-cased email', () => {
    expect(referenceOf({ external_id: 'x', email: 'a@b.c' })).toEqual({ external_id: 'x' });
    expect(referenceOf({ external_id: '', email: 'A@B.C' })).toEqual({ email: 'a@b.c' });
    expect(referenceOf({ external_id: null, email: null })).toBeUndefined();
  });

  it('gives at most two initials from the email, none from an opaque external id', () => {
    expect(initialsOf({ email: 'jane.doe.smith@example.com', external_id: 'x' })).toBe('JD');
    expect(initialsOf({ email: 'élodie@example.com', external_id: null })).toBe('É');
    expect(initialsOf({ email: '42@example.com', external_id: null })).toBe('');
    expect(initialsOf({ email: null, external_id: 'jane-doe' })).toBe('');
  });

  it("counts a purpose active only while granted, not withdrawn and not expired, across the person's flows", () => {
    const now = new Date('2026-11-25T00:00:00Z');
    const heads = [
      record('r1', { news: 'granted', ads: 'granted', calls: 'declined' }),
      record('r2', { research: 'granted' }, new Date('2026-11-02T00:00:00Z')),
    ];
    const withdrawals: Withdrawal[] = [{ recordId: 'r1', purpose: 'ads', channel: 'api' as Withdrawal['channel'], withdrawnAt: now }];
    expect(directoryStatus(heads, withdrawals, now)).toEqual({
      purposes: [
        { purpose: 'ads', status: 'inactive' },
        { purpose: 'calls', status: 'inactive' },
        { purpose: 'news', status: 'active' },
        { purpose: 'research', status: 'inactive' },
      ],
      activeCount: 1,
    });
  });
});
