// duration.HumanDuration from k8s.io/apimachinery, which every printer uses for AGE-like cells.
// Go truncates each unit toward zero, so Math.trunc is used throughout.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "<unknown>" for a missing or unreadable timestamp, otherwise the age of `from` at `now`. */
export function formatAge(from: string | undefined, now: Date): string {
  const t = parseTime(from);
  if (t === undefined) return '<unknown>';
  return humanDuration(now.getTime() - t);
}

export function parseTime(v: string | undefined): number | undefined {
  if (!v) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

/** Renders a duration in milliseconds with ~2-3 significant figures. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  // Up to a second of clock skew in the future still reads as "now".
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) return withRest(minutes, 'm', seconds % 60, 's');
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) return withRest(hours, 'h', minutes % 60, 'm');
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(ms / DAY);
  if (hours < 24 * 8) return withRest(days, 'd', hours % 24, 'h');
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return withRest(years, 'y', days % 365, 'd');
  return `${years}y`;
}

function withRest(big: number, bigUnit: string, rest: number, restUnit: string): string {
  return rest === 0 ? `${big}${bigUnit}` : `${big}${bigUnit}${rest}${restUnit}`;
}
