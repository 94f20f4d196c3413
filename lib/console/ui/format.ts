// Durations, ages and countdowns as the console prints them. Pure.

/** 4s, 1m05s, 2h03m, 3d04h. Negative values are clamped to 0. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h${String(m % 60).padStart(2, '0')}m`;
  const d = Math.floor(h / 24);
  return `${d}d${String(h % 24).padStart(2, '0')}h`;
}

/** A grace-period countdown: "12.4s left", or "overrun 3.0s" once the deadline is past. */
export function formatCountdown(deadline: number, now: number): { text: string; overdue: boolean } {
  const left = deadline - now;
  if (left >= 0) return { text: `${(Math.floor(left / 100) / 10).toFixed(1)}s left`, overdue: false };
  return { text: `overrun ${(Math.floor(-left / 100) / 10).toFixed(1)}s`, overdue: true };
}

/** Offset relative to a reference: "+1.25s", "-0.50s", "+0s". */
export function formatOffset(ms: number): string {
  if (ms === 0) return '+0s';
  const sign = ms > 0 ? '+' : '-';
  const abs = Math.abs(ms);
  return abs >= 10_000 ? `${sign}${(abs / 1000).toFixed(1)}s` : `${sign}${(abs / 1000).toFixed(2)}s`;
}

/** 14:03:07 local time, or '—' when unknown. */
export function formatClock(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '—';
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}
