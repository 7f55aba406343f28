import { isDecimal } from '../shared/decimal';
import type { AuthorityBounds } from './bounds';

export type BoundKey = keyof AuthorityBounds;

/** What is wrong with one bound, naming the field (`time_bounds` or `value_bounds.per_action`). */
export interface BoundDefect {
  field: string;
  message: string;
}

type Check = (value: unknown) => boolean;

const isStringList: Check = (v) => Array.isArray(v) && v.every((item) => typeof item === 'string');
const isIntegerList: Check = (v) => Array.isArray(v) && v.every((item) => Number.isInteger(item));
const isInteger: Check = (v) => Number.isInteger(v);
const isBoolean: Check = (v) => typeof v === 'boolean';
const isTimestamp: Check = (v) => typeof v === 'string' && Number.isFinite(Date.parse(v));
const isCurrency: Check = (v) => typeof v === 'string' && /^[A-Z]{3}$/.test(v);
const isHourRange: Check = (v) => isIntegerList(v) && (v as unknown[]).length === 2;
const isBucketList: Check = (v) =>
  Array.isArray(v) &&
  v.every(
    (b) =>
      typeof b === 'object' &&
      b !== null &&
      ['minute', 'hour', 'day'].includes((b as { period?: unknown }).period as string) &&
      Number.isInteger((b as { max?: unknown }).max),
  );
const isQuorumType: Check = (v) => v === 'all' || v === 'majority' || v === 'threshold';

/**
 * The constraints each bound may hold and their declared types (spec, Authority bounds). Every
 * bound but escalation also takes `unrestricted: true`, the explicit opt-out.
 */
const CONSTRAINTS: Record<BoundKey, Record<string, Check>> = {
  scope_bounds: { allowed: isStringList, denied: isStringList },
  action_bounds: { allowed: isStringList, prohibited: isStringList, max_actions: isInteger },
  value_bounds: { currency: isCurrency, per_action: isDecimal, per_month: isDecimal, aggregate: isDecimal },
  time_bounds: { not_before: isTimestamp, not_after: isTimestamp, hours_utc: isHourRange, days: isIntegerList, buckets: isBucketList },
  escalation_bounds: {
    amount_over: isDecimal,
    actions: isStringList,
    scopes: isStringList,
    always: isBoolean,
    quorum_type: isQuorumType,
    approvers: isStringList,
    threshold: isInteger,
    approval_ttl_seconds: isInteger,
  },
  reputation_bounds: { min_trust_score: isInteger, min_vouch_count: isInteger },
  oap_sequence_bounds: { ordering: isStringList, max_per_minute: isInteger, max_repetitions: isInteger, max_continuation_depth: isInteger },
  jurisdiction_bounds: { allowed: isStringList },
};

const HAS_UNRESTRICTED: ReadonlySet<BoundKey> = new Set([
  'scope_bounds',
  'action_bounds',
  'value_bounds',
  'time_bounds',
  'reputation_bounds',
  'oap_sequence_bounds',
  'jurisdiction_bounds',
]);

/**
 * Why the bound `key` cannot be enforced as given, or undefined when it can: a bound must be an
 * object (not an array, not null) holding at least one constraint of its declared type or
 * `unrestricted: true` — an empty bound would otherwise read as "unlimited", and the spec says
 * absence is never unlimited. The same rule refuses such a bound at creation and makes a stored
 * one fail closed in the cascade.
 */
export function boundDefect(key: BoundKey, value: unknown): BoundDefect | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { field: key, message: `${key} must be an object with at least one constraint or unrestricted: true` };
  }
  const constraints = CONSTRAINTS[key];
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  for (const [name, v] of entries) {
    if (name === 'unrestricted' && HAS_UNRESTRICTED.has(key)) {
      if (typeof v !== 'boolean') return { field: `${key}.unrestricted`, message: `${key}.unrestricted must be a boolean` };
      continue;
    }
    const check = constraints[name];
    if (!check) return { field: `${key}.${name}`, message: `${key}.${name} is not a known constraint` };
    if (!check(v)) return { field: `${key}.${name}`, message: `${key}.${name} is not of its declared type` };
  }
  const unrestricted = (value as { unrestricted?: unknown }).unrestricted === true;
  if (!unrestricted && !entries.some(([name]) => name !== 'unrestricted')) {
    return {
      field: key,
      message: HAS_UNRESTRICTED.has(key)
        ? `${key} must hold at least one constraint or unrestricted: true`
        : `${key} must hold at least one constraint`,
    };
  }
  return undefined;
}
