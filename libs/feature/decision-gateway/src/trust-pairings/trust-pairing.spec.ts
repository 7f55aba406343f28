import { roleOf, statusAfter, type TrustPairing } from './trust-pairing';

const pairing: TrustPairing = {
  id: 'tpr_us_aaaaaaaaaaaaaaaaaaaa',
  issuerApplicationId: 'tp_us_issuer',
  counterpartyApplicationId: 'tp_us_counterparty',
  name: 'n',
  scopes: ['receipts:verify'],
  status: 'proposed',
  proposedAt: new Date(0),
  acceptedAt: null,
  declinedAt: null,
  revokedAt: null,
  revokedBy: null,
  updatedAt: new Date(0),
};

describe('trust pairing moves', () => {
  it("names the caller's side, or none", () => {
    expect(roleOf(pairing, 'tp_us_issuer')).toBe('issuer');
    expect(roleOf(pairing, 'tp_us_counterparty')).toBe('counterparty');
    expect(roleOf(pairing, 'tp_us_other')).toBeUndefined();
  });

  it('lets only the counterparty answer a proposal', () => {
    expect(statusAfter('proposed', 'counterparty', 'accept')).toBe('active');
    expect(statusAfter('proposed', 'counterparty', 'decline')).toBe('declined');
    expect(statusAfter('proposed', 'issuer', 'accept')).toBeUndefined();
    expect(statusAfter('proposed', 'issuer', 'decline')).toBeUndefined();
  });

  it('answers a proposal once', () => {
    for (const status of ['active', 'declined', 'revoked'] as const) {
      expect(statusAfter(status, 'counterparty', 'accept')).toBeUndefined();
      expect(statusAfter(status, 'counterparty', 'decline')).toBeUndefined();
    }
  });

  it('lets either side revoke an open pairing, and nothing else', () => {
    for (const role of ['issuer', 'counterparty'] as const) {
      expect(statusAfter('proposed', role, 'revoke')).toBe('revoked');
      expect(statusAfter('active', role, 'revoke')).toBe('revoked');
      expect(statusAfter('declined', role, 'revoke')).toBeUndefined();
      expect(statusAfter('revoked', role, 'revoke')).toBeUndefined();
    }
  });
});
