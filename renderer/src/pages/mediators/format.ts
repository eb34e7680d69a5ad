/** Words for durations and times on the mediators pages. */

/** "3 days 4 h", "2 h 5 min", "4 min 12 s", "12 s". */
export function formatUptime(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const days = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const secs = s % 60;
  if (days > 0) return `${days} ${days === 1 ? 'day' : 'days'} ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes} min`;
  if (minutes > 0) return `${minutes} min ${secs} s`;
  return `${secs} s`;
}

/** Uptime now: the uptime reported at the last heartbeat plus the time since. */
export function currentUptime(uptime: number, lastHeartbeat: string | undefined, now: number): number {
  if (lastHeartbeat === undefined) return uptime;
  const since = (now - Date.parse(lastHeartbeat)) / 1000;
  return uptime + Math.max(0, since);
}

/** A date and time in the browser's locale. */
export function formatTime(iso: string | undefined): string {
  if (iso === undefined) return 'never';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** "5 s ago", "3 min ago", or the date when older than a day. */
export function formatAgo(iso: string | undefined, now: number): string {
  if (iso === undefined) return 'never';
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (Number.isNaN(seconds)) return iso;
  if (seconds < 5) return 'just now';
  if (seconds < 86_400) return `${formatUptime(seconds)} ago`;
  return formatTime(iso);
}
