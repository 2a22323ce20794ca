/**
 * Quiet hours (UTC): the nightly window in which runs of an organization whose limits say
 * `quiet_hours_only` start. The window is a documented setting, the same for everyone
 * (SERVICE_QUIET_HOURS_UTC, default 22:00-06:00; docs/billing.md), so a client can plan
 * around it without asking.
 */
export const QUIET_HOURS_UTC = Object.freeze({ start: '22:00', end: '06:00' });

/** A quiet window, `HH:MM` UTC each; the end may be earlier than the start (wraps past midnight). */
export interface QuietWindow {
  readonly start: string;
  readonly end: string;
}

const minutesOf = (hhmm: string): number => {
  const [h, m] = hhmm.split(':').map(Number);
  return h! * 60 + m!;
};

/** Whether `now` falls inside the quiet hours (the window may wrap past midnight). */
export function inQuietHours(now = new Date(), window: QuietWindow = QUIET_HOURS_UTC): boolean {
  const start = minutesOf(window.start);
  const end = minutesOf(window.end);
  const t = now.getUTCHours() * 60 + now.getUTCMinutes();
  return start <= end ? t >= start && t < end : t >= start || t < end;
}

/** The next start of the quiet hours strictly after `now` (ISO, UTC). */
export function nextQuietStart(now = new Date(), window: QuietWindow = QUIET_HOURS_UTC): string {
  const start = minutesOf(window.start);
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 0, start);
  return new Date(today > now.getTime() ? today : today + 86_400_000).toISOString();
}

/**
 * When a run asked for at `now` may start: null (at once) unless the organization's limits
 * say `quiet_hours_only` and `now` is outside the window, then the next start of the window.
 */
export function runStartsAt(
  quietOnly: boolean,
  now = new Date(),
  window: QuietWindow = QUIET_HOURS_UTC,
): string | null {
  if (!quietOnly || inQuietHours(now, window)) return null;
  return nextQuietStart(now, window);
}
