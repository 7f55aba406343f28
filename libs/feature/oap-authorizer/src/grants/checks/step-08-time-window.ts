import { authorityOf, deny, pass, cascadeStep } from './cascade-step';

/**
 * Step 8, time window: now inside `time_bounds` (not_before/not_after, UTC hours, ISO weekdays),
 * the requested `valid_until` not beyond `not_after`, and each per-bucket count (current UTC
 * minute/hour/day) below its maximum.
 */
export const step08TimeWindow = cascadeStep({
  step: 8,
  name: 'time_window',
  category: 'intent_denied',
  reasons: ['time_bounds_not_configured', 'outside_time_window', 'time_bucket_exhausted'],
  bounds: ['time_bounds'],
  check(context) {
    const bounds = authorityOf(context).bounds.time_bounds;
    if (!bounds) return deny('time_bounds_not_configured', 'The authority configures no time bounds');
    if (bounds.unrestricted) return pass;
    const { now, request } = context;
    if (bounds.not_before !== undefined && now < new Date(bounds.not_before))
      return deny('outside_time_window', 'Before the allowed time window');
    if (bounds.not_after !== undefined && (now >= new Date(bounds.not_after) || request.validUntil > new Date(bounds.not_after))) {
      return deny('outside_time_window', 'Beyond the allowed time window');
    }
    if (bounds.hours_utc) {
      const [start, end] = bounds.hours_utc;
      const hour = now.getUTCHours();
      if (hour < start || hour >= end) return deny('outside_time_window', `Outside the allowed UTC hours ${start}-${end}`);
    }
    if (bounds.days) {
      const isoDay = now.getUTCDay() === 0 ? 7 : now.getUTCDay();
      if (!bounds.days.includes(isoDay)) return deny('outside_time_window', 'Outside the allowed weekdays');
    }
    for (const bucket of bounds.buckets ?? []) {
      if (context.history.buckets[bucket.period] + 1 > bucket.max)
        return deny('time_bucket_exhausted', `At most ${bucket.max} grants per ${bucket.period}`);
    }
    return pass;
  },
});
