/** ISO 8601 duration in the date/time form (`P1Y`, `P6M`, `P30D`, `PT12H`); the flows' format. */
const ISO_DURATION = /^P(?!$)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/**
 * Days in an ISO 8601 duration, a year counted as 365 and a month as 30; undefined when the text
 * is not one.
 */
export function durationDays(text: string): number | undefined {
  const match = ISO_DURATION.exec(text);
  if (!match) return undefined;
  const [years, months, weeks, days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return years * 365 + months * 30 + weeks * 7 + days + hours / 24 + minutes / 1_440 + seconds / 86_400;
}

/** Whether a text is an ISO 8601 duration of the flows' form. */
export function isDuration(text: string): boolean {
  return ISO_DURATION.test(text);
}
