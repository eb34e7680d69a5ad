/** Words for the service's state: the tray's status line and the page the window shows while the console is not up. */
import type { ServiceState } from './supervisor.js';

/** One short line for the tray menu and tooltip. */
export function statusLine(state: ServiceState): string {
  switch (state.phase) {
    case 'idle':
    case 'starting':
      return 'Starting…';
    case 'running':
      return `Running at ${state.ready.apiUrl}`;
    case 'restarting':
      return 'Restarting…';
    case 'failed':
      return `Failed: ${state.reason}`;
    case 'stopping':
      return 'Stopping…';
    case 'stopped':
      return 'Stopped';
  }
}

/** Menu labels are one line; long failure reasons are cut (the window and the log have the whole text). */
export function menuLabel(text: string, maxChars = 90): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A self-contained page (no script, no outside resources) for the window while the console cannot be shown:
 * starting, restarting, or failed with the reason and where the log is.
 */
export function statusPage(state: ServiceState, logsDir: string): string {
  let title: string;
  let body: string;
  switch (state.phase) {
    case 'failed':
      title = 'Junction could not start';
      body =
        `<p class="reason">${escapeHtml(state.reason)}</p>` +
        '<p>Choose <strong>Try again</strong> in the Junction menu of the system tray once the cause is fixed, or quit and start Junction again.</p>' +
        `<p>The log is in <code>${escapeHtml(logsDir)}</code>.</p>`;
      break;
    case 'restarting':
      title = 'Junction is restarting';
      body = `<p class="reason">${escapeHtml(state.reason)}</p><p>Trying again in a moment.</p>`;
      break;
    case 'stopping':
    case 'stopped':
      title = 'Junction is stopping';
      body = '';
      break;
    default:
      title = 'Junction is starting';
      body = '<p>The console opens here as soon as the service is ready.</p>';
  }
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>${escapeHtml(title)}</title>`,
    '<style>body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;color:#1b2b2b;background:#f4f7f7}',
    'main{max-width:40rem;padding:2rem}h1{font-size:1.5rem;color:#0b6e6e}.reason{padding:.75rem 1rem;background:#fff;border-left:4px solid #c0392b;white-space:pre-wrap;word-break:break-word}',
    'code{word-break:break-all}</style></head>',
    `<body><main role="${state.phase === 'failed' ? 'alert' : 'status'}"><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`,
  ].join('');
}

/** The page as a data: URL the window can load. */
export function statusPageUrl(state: ServiceState, logsDir: string): string {
  return `data:text/html;charset=utf-8,${encodeURIComponent(statusPage(state, logsDir))}`;
}
