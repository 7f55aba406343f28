const DURATION = /^P(?!$)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/** True for an ISO 8601 duration in the date/time form this platform writes (`P1Y`, `P30D`, `PT90S`…). */
export function isIsoDuration(value: string): boolean {
  return DURATION.test(value);
}

/**
 * `start` plus an ISO 8601 duration, in UTC calendar arithmetic (months and years move the
 * calendar date, as a person reads "valid for 6 months"). Returns undefined for a malformed duration.
 */
export function addIsoDuration(start: Date, duration: string): Date | undefined {
  const match = DURATION.exec(duration);
  if (!match) return undefined;
  const [, y, mo, w, d, h, mi, s] = match.map((part) => (part === undefined ? 0 : Number(part)));
  const result = new Date(start.getTime());
  result.setUTCFullYear(
    result.getUTCFullYear() + (y ?? 0),
    result.getUTCMonth() + (mo ?? 0),
    result.getUTCDate() + (w ?? 0) * 7 + (d ?? 0),
  );
  result.setUTCHours(result.getUTCHours() + (h ?? 0), result.getUTCMinutes() + (mi ?? 0), result.getUTCSeconds() + (s ?? 0));
  return result;
}
