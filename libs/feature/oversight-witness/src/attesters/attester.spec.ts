import { attesterTokenDigest, livenessView, newAttesterToken, type TrustedAttester } from './attester';
import { attesterView } from './attester.response';

const base: TrustedAttester = {
  id: 'tatr_us_aaaaaaaaaaaaaaaaaaaa',
  applicationId: 'tp_us_aaaaaaaaaaaaaaaaaaaa',
  name: 'engine',
  permissions: ['attestations:submit'],
  scopeApplicationId: null,
  status: 'active',
  previousTokenExpiresAt: null,
  createdAt: new Date('2026-03-01T00:00:00Z'),
  updatedAt: new Date('2026-03-01T00:00:00Z'),
  rotatedAt: null,
  suspendedAt: null,
  destroyedAt: null,
  lastHeartbeatAt: null,
  lastHeartbeat: null,
};

/** Spec: Identifiers (trusted attester token), Trusted attester. */
describe('trusted attester', () => {
  it('mints tat_<region>_<base64url(32)> tokens and digests them with SHA-256 hex', () => {
    const token = newAttesterToken('eu');
    expect(token).toMatch(/^tat_eu_[A-Za-z0-9_-]{43}$/);
    expect(attesterTokenDigest('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('shows the previous-slot expiry only while the overlap lasts', () => {
    const rotated = { ...base, previousTokenExpiresAt: new Date('2026-03-02T00:00:00Z') };
    expect(attesterView(rotated, new Date('2026-03-01T23:59:59Z')).previous_token_expires_at).toBe('2026-03-02T00:00:00.000Z');
    expect(attesterView(rotated, new Date('2026-03-02T00:00:00Z')).previous_token_expires_at).toBeNull();
    expect(attesterView(base, new Date()).token).toBeUndefined();
  });

  it('flags an active engine silent when it never beat or beat longer ago than the threshold', () => {
    const now = new Date('2026-03-01T00:10:00Z');
    expect(livenessView(base, now, 300).silent).toBe(true);
    const beat = { ...base, lastHeartbeatAt: new Date('2026-03-01T00:05:00Z') };
    expect(livenessView(beat, now, 300).silent).toBe(false);
    expect(livenessView(beat, new Date('2026-03-01T00:10:01Z'), 300).silent).toBe(true);
    expect(livenessView({ ...base, status: 'suspended' }, now, 300).silent).toBe(false);
  });
});
