/**
 * Quiet hours (UTC): the nightly window in which runs of a plan with `quiet_hours_only`
 * start. The window is a documented constant (docs/billing.md), the same for everyone, so a
 * client can plan around it without asking.
 */
export const QUIET_HOURS_UTC = Object.freeze({ start: '22:00', end: '06:00' });

const minutesOf = (hhmm: string): number => {
  const [h, m] = hhmm.split(':').map(Number);
  return h! * 60 + m!;
};

/** Whether `now` falls inside the quiet hours (the window may wrap past midnight). */
export function inQuietHours(now = new Date()): boolean {
  const start = minutesOf(QUIET_HOURS_UTC.start);
  const end = minutesOf(QUIET_HOURS_UTC.end);
  const t = now.getUTCHours() * 60 + now.getUTCMinutes();
  return start <= end ? t >= start && t < end : t >= start || t < end;
}

/** The next start of the quiet hours strictly after `now` (ISO, UTC). */
export function nextQuietStart(now = new Date()): string {
  const start = minutesOf(QUIET_HOURS_UTC.start);
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 0, start);
  return new Date(today > now.getTime() ? today : today + 86_400_000).toISOString();
}
