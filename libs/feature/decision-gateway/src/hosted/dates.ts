import { escapeHtml } from './html';

/**
 * Dates on the hosted pages are written for the person: the page script rewrites every
 * `<time data-format>` with `Intl.DateTimeFormat` in the browser's own time zone and the page's
 * language. What the server renders first (and what a page without script keeps) is the same
 * date in the page's language, in UTC, with the zone named: never a raw ISO stamp.
 */
export const DATE_OPTIONS: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'long',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
};

/** The server-side rendering of an instant: the page's language, UTC, zone named. */
export function formatInstant(iso: string, locale: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, { ...DATE_OPTIONS, timeZone: 'UTC' }).format(at);
}

/** A `<time>` element the page script localizes; `detail` names it for tests (`data-detail`). */
export function timeElement(iso: string, locale: string, detail?: string): string {
  return `<time${detail ? ` data-detail="${escapeHtml(detail)}"` : ''} data-format="datetime" datetime="${escapeHtml(iso)}">${escapeHtml(formatInstant(iso, locale))}</time>`;
}
