import { PASS, context, denied, history, request, run } from '../../../test/cascade-fixtures';
import type { ValueBounds } from '../../authorities/bounds';
import { historyNeeds, utcMonthStart } from './history-needs';
import { step07ValueBounds } from './step-07-value-bounds';

const EUR = { currency: 'EUR', per_action: '100.00', aggregate: '250' };
const verdict = (valueBounds: ValueBounds | undefined, amount: string | undefined, aggregate = '0', currency = 'EUR') =>
  run(
    step07ValueBounds,
    context(valueBounds ? { value_bounds: valueBounds } : {}, {
      request: request(amount === undefined ? {} : { value: { amount, currency } }),
      history: history({ aggregate }),
    }),
  );

describe('step 7 — value bounds', () => {
  it('passes a request without a value, even with no value bounds', () => {
    expect(verdict(undefined, undefined)).toEqual(PASS);
    expect(verdict(EUR, undefined, '1000')).toEqual(PASS);
  });

  it('denies a value when the authority configures no value bounds', () => {
    expect(verdict(undefined, '1')).toEqual(denied('value_bounds_not_configured', 'The authority configures no value bounds'));
  });

  it('passes any value when value bounds are unrestricted', () => {
    expect(verdict({ unrestricted: true }, '1000000', '0', 'JPY')).toEqual(PASS);
  });

  it('denies a value in another currency, naming both', () => {
    expect(verdict(EUR, '10', '0', 'USD')).toEqual(denied('currency_mismatch', 'Value bounds are in EUR, not USD'));
    expect(verdict({ per_action: '10' }, '1')).toEqual(denied('currency_mismatch', 'Value bounds are in no currency, not EUR'));
  });

  it('allows exactly the per-action ceiling and denies a cent more', () => {
    expect(verdict(EUR, '100')).toEqual(PASS);
    expect(verdict(EUR, '100.01')).toEqual(denied('value_exceeds_per_action', 'Amount exceeds the per-action ceiling of 100.00'));
  });

  it('allows exactly the aggregate ceiling with what was granted, and denies a cent more', () => {
    expect(verdict(EUR, '20', '230.00')).toEqual(PASS);
    expect(verdict(EUR, '20.01', '230.00')).toEqual(denied('value_exceeds_aggregate', 'Amount would exceed the aggregate ceiling of 250'));
  });

  it('checks only the ceilings that are set', () => {
    expect(verdict({ currency: 'EUR', aggregate: '1000' }, '999')).toEqual(PASS);
    expect(verdict({ currency: 'EUR', per_action: '1000' }, '999', '1000000')).toEqual(PASS);
  });
});

describe('step 7 — monthly value bound', () => {
  const MONTHLY = { currency: 'EUR', per_action: '50.00', per_month: '200.00', aggregate: '1000' };
  const monthly = (amount: string, month: string, currency = 'EUR', aggregate = month) =>
    run(
      step07ValueBounds,
      context({ value_bounds: MONTHLY }, { request: request({ value: { amount, currency } }), history: history({ aggregate, month }) }),
    );

  it("allows exactly the monthly ceiling with the month's grants, and denies a cent more", () => {
    expect(monthly('50', '150.00')).toEqual(PASS);
    expect(monthly('50.00', '150.01')).toEqual(denied('value_exceeds_monthly', 'Amount would exceed the monthly ceiling of 200.00'));
    expect(monthly('0.01', '200')).toEqual(denied('value_exceeds_monthly', 'Amount would exceed the monthly ceiling of 200.00'));
  });

  it("reads only the current month's sum, not what was granted in earlier months", () => {
    expect(monthly('50', '0', 'EUR', '900')).toEqual(PASS);
  });

  it('still applies the per-action ceiling first and the aggregate ceiling after', () => {
    expect(monthly('50.01', '0')).toEqual(denied('value_exceeds_per_action', 'Amount exceeds the per-action ceiling of 50.00'));
    expect(monthly('50', '0', 'EUR', '960')).toEqual(
      denied('value_exceeds_aggregate', 'Amount would exceed the aggregate ceiling of 1000'),
    );
  });

  it('compares exactly, with no float rounding', () => {
    const bounds = { currency: 'EUR', per_month: '0.3' };
    const at = (amount: string, month: string) =>
      run(
        step07ValueBounds,
        context({ value_bounds: bounds }, { request: request({ value: { amount, currency: 'EUR' } }), history: history({ month }) }),
      );
    expect(at('0.1', '0.2')).toEqual(PASS);
    expect(at('0.100000000000000001', '0.2')).toEqual(denied('value_exceeds_monthly', 'Amount would exceed the monthly ceiling of 0.3'));
  });

  it('denies a value in another currency before counting the month', () => {
    expect(monthly('1', '0', 'USD')).toEqual(denied('currency_mismatch', 'Value bounds are in EUR, not USD'));
  });
});

describe('the monthly window', () => {
  it('starts at the first millisecond of the UTC calendar month', () => {
    expect(utcMonthStart(new Date('2026-12-31T23:59:59.999Z')).toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(utcMonthStart(new Date('2027-01-01T00:00:00.000Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(utcMonthStart(new Date('2027-01-01T00:00:00.001Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(utcMonthStart(new Date('2028-02-29T12:00:00.000Z')).toISOString()).toBe('2028-02-01T00:00:00.000Z');
  });

  it('follows UTC, not the local offset of a timestamp', () => {
    expect(utcMonthStart(new Date('2026-03-01T00:30:00.000+01:00')).toISOString()).toBe('2026-02-01T00:00:00.000Z');
  });

  it('is read only when the authority sets a monthly ceiling', () => {
    expect(historyNeeds({ value_bounds: { currency: 'EUR', per_month: '200' } }).month).toBe(true);
    expect(historyNeeds({ value_bounds: { currency: 'EUR', aggregate: '200' } }).month).toBe(false);
  });
});
