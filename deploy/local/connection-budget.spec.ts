import { DEFAULT_CONNECTION_BUDGET, RESERVED_FOR_TOOLS, connectionBudget, connectionCeiling, poolSizes } from './connection-budget';

const SERVICES = [
  'decision-gateway',
  'consent-records',
  'oap-authorizer',
  'webhook-dispatcher',
  'audit-chain',
  'receipts',
  'oversight-witness',
];

describe('the local stack connection budget (DATABASE_CONNECTION_BUDGET)', () => {
  it('monolithic, 30: one process per region with a pool of 8 and its listener, 27 in all, 3 left for tools', () => {
    const pools = poolSizes(DEFAULT_CONNECTION_BUDGET.monolithic, 3, ['region']);
    expect(pools).toEqual({ region: 8 });
    expect(connectionCeiling(pools, 3) + RESERVED_FOR_TOOLS).toBe(30);
  });

  it('distributed, 60: seven processes per region, the busiest five with a pool of 2, 57 in all, 3 left for tools', () => {
    const pools = poolSizes(DEFAULT_CONNECTION_BUDGET.distributed, 3, SERVICES);
    expect(pools).toEqual({
      'decision-gateway': 2,
      'consent-records': 2,
      'oap-authorizer': 2,
      'webhook-dispatcher': 2,
      'audit-chain': 2,
      receipts: 1,
      'oversight-witness': 1,
    });
    expect(connectionCeiling(pools, 3)).toBe(57);
  });

  it.each([45, 61, 100, 250])('never exceeds a budget of %i, every pool at least 1', (budget) => {
    const pools = poolSizes(budget, 3, SERVICES);
    expect(connectionCeiling(pools, 3) + RESERVED_FOR_TOOLS).toBeLessThanOrEqual(budget);
    expect(Math.min(...Object.values(pools))).toBeGreaterThanOrEqual(1);
  });

  it('refuses a budget that cannot give every process a listener and one pooled connection', () => {
    expect(() => poolSizes(44, 3, SERVICES)).toThrow('too small');
    expect(() => poolSizes(45, 3, SERVICES)).not.toThrow();
    expect(() => poolSizes(0, 3, SERVICES)).toThrow('positive integer');
  });

  it('reads the setting, else the default of the mode', () => {
    expect(connectionBudget('monolithic', {})).toBe(30);
    expect(connectionBudget('distributed', { DATABASE_CONNECTION_BUDGET: '' })).toBe(60);
    expect(connectionBudget('distributed', { DATABASE_CONNECTION_BUDGET: '90' })).toBe(90);
    expect(() => connectionBudget('monolithic', { DATABASE_CONNECTION_BUDGET: '-1' })).toThrow('positive integer');
  });
});
