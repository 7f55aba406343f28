import { PASS, context, denied, history, request, run } from '../../../test/cascade-fixtures';
import type { ValueBounds } from '../../authorities/bounds';
import { step07ValueBounds } from './step-07-value-bounds';

const EUR = { currency: 'EUR', per_action: '100.00', aggregate: '250' };
const verdict = (valueBounds: ValueBounds | undefined, amount: string | undefined, aggregate = '0', currency = 'EUR') =>
  run(
    step07ValueBounds,
    context(valueBounds ? { value_bounds: valueBounds } : {}, { request: request(amount === undefined ? {} : { value: { amount, currency } }), history: history({ aggregate }) }),
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
