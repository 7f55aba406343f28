import { trustScore, type TrustScoreInputs } from './trust-score';

const NONE: TrustScoreInputs = {
  vouch_count: 0,
  vouch_weight_total: 0,
  allowed_grants_90d: 0,
  attestations_90d: 0,
  revoked_grants_90d: 0,
  denials_30d: 0,
};

describe('trust score formula (Verify surface, published)', () => {
  it('is 0 with no inputs', () => {
    expect(trustScore(NONE)).toBe(0);
  });

  it('adds vouch weights up to 70 and history up to 30', () => {
    expect(trustScore({ ...NONE, vouch_count: 2, vouch_weight_total: 60 })).toBe(60);
    expect(trustScore({ ...NONE, vouch_count: 5, vouch_weight_total: 250 })).toBe(70);
    expect(trustScore({ ...NONE, vouch_weight_total: 250, allowed_grants_90d: 500 })).toBe(100);
  });

  it('takes 10 per revoked grant and 2 per denial (at most 30), never below 0', () => {
    expect(trustScore({ ...NONE, vouch_weight_total: 50, revoked_grants_90d: 2 })).toBe(30);
    expect(trustScore({ ...NONE, vouch_weight_total: 70, denials_30d: 100 })).toBe(40);
    expect(trustScore({ ...NONE, vouch_weight_total: 10, revoked_grants_90d: 5 })).toBe(0);
  });

  it('adds 2 per accepted attestation, at most 20', () => {
    expect(trustScore({ ...NONE, attestations_90d: 3 })).toBe(6);
    expect(trustScore({ ...NONE, attestations_90d: 40 })).toBe(20);
    expect(trustScore({ ...NONE, vouch_weight_total: 70, allowed_grants_90d: 30, attestations_90d: 10 })).toBe(100);
  });

  it('lets a revocation and denials outweigh attestations', () => {
    expect(trustScore({ ...NONE, vouch_weight_total: 20, attestations_90d: 5, revoked_grants_90d: 1, denials_30d: 5 })).toBe(10);
  });
});
