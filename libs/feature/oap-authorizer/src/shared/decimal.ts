/**
 * Exact decimal strings for money: `"12"`, `"12.5"`, `"0.001"`. Compared and added as scaled
 * BigInts, never as floats, so `"0.1" + "0.2"` is exactly `"0.3"` and a ceiling of `"100.00"`
 * is never crossed by rounding.
 */

/** Unsigned decimal string: digits, optional fraction, at most 18 integer and 18 fraction digits. */
export const DECIMAL_PATTERN = /^(0|[1-9][0-9]{0,17})(\.[0-9]{1,18})?$/;

/** True when `value` is an unsigned decimal string of {@link DECIMAL_PATTERN}. */
export function isDecimal(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL_PATTERN.test(value);
}

interface Scaled {
  units: bigint;
  scale: number;
}

function parse(value: string): Scaled {
  if (!isDecimal(value)) throw new RangeError(`"${value}" is not a decimal string`);
  const [whole = '0', fraction = ''] = value.split('.');
  return { units: BigInt(whole + fraction), scale: fraction.length };
}

function align(a: Scaled, b: Scaled): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.units * 10n ** BigInt(scale - a.scale), b.units * 10n ** BigInt(scale - b.scale), scale];
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`. Throws RangeError on a non-decimal. */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const [x, y] = align(parse(a), parse(b));
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Exact sum of two decimal strings, without trailing fraction zeros (`"1.50" + "1"` → `"2.5"`). */
export function addDecimal(a: string, b: string): string {
  const [x, y, scale] = align(parse(a), parse(b));
  return format(x + y, scale);
}

function format(units: bigint, scale: number): string {
  const digits = units.toString().padStart(scale + 1, '0');
  if (scale === 0) return digits;
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}
