import { addDecimal, compareDecimal } from '../../shared/decimal';
import { authorityOf, deny, pass, cascadeStep } from './cascade-step';

/**
 * Step 7, value bounds: a request carrying a value needs `value_bounds` in the same currency, an
 * amount within `per_action`, and — with everything already granted — within `per_month` (the
 * current UTC calendar month's allowed amounts) and `aggregate`. Exact
 * decimal arithmetic; no float anywhere.
 */
export const step07ValueBounds = cascadeStep({
  step: 7,
  name: 'value_bounds',
  category: 'intent_denied',
  reasons: [
    'value_bounds_not_configured',
    'currency_mismatch',
    'value_exceeds_per_action',
    'value_exceeds_monthly',
    'value_exceeds_aggregate',
  ],
  bounds: ['value_bounds'],
  check(context) {
    const value = context.request.value;
    if (!value) return pass;
    const bounds = authorityOf(context).bounds.value_bounds;
    if (!bounds) return deny('value_bounds_not_configured', 'The authority configures no value bounds');
    if (bounds.unrestricted) return pass;
    if (bounds.currency !== value.currency)
      return deny('currency_mismatch', `Value bounds are in ${bounds.currency ?? 'no currency'}, not ${value.currency}`);
    if (bounds.per_action !== undefined && compareDecimal(value.amount, bounds.per_action) > 0) {
      return deny('value_exceeds_per_action', `Amount exceeds the per-action ceiling of ${bounds.per_action}`);
    }
    if (bounds.per_month !== undefined && compareDecimal(addDecimal(context.history.month, value.amount), bounds.per_month) > 0) {
      return deny('value_exceeds_monthly', `Amount would exceed the monthly ceiling of ${bounds.per_month}`);
    }
    if (bounds.aggregate !== undefined && compareDecimal(addDecimal(context.history.aggregate, value.amount), bounds.aggregate) > 0) {
      return deny('value_exceeds_aggregate', `Amount would exceed the aggregate ceiling of ${bounds.aggregate}`);
    }
    return pass;
  },
});
