/** The console's address as a message's recipient reaches it, for links in alerts, reports and set-password emails. */

/**
 * `alerts.consoleURL` when set; otherwise the management API's own address, where the console is served. A wildcard
 * listening address means nothing to a recipient, so the machine's name stands in for it.
 */
export function consoleUrl(configured: string, api: { protocol: 'http' | 'https'; host: string; port: number; machineName: string }): string {
  const given = configured.trim();
  if (given !== '') return given.replace(/\/+$/, '');
  const host = api.host === '0.0.0.0' || api.host === '::' || api.host === '' ? api.machineName || 'localhost' : api.host;
  return `${api.protocol}://${host.includes(':') ? `[${host}]` : host}:${api.port}`;
}
