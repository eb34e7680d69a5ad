/** The console's address as a message's recipient reaches it, for links in alerts, reports and set-password emails. */

/** The address links point at, and whether an admin chose it (`alerts.consoleURL`) or Junction guessed it. */
export interface ConsoleLinks {
  url: string;
  configured: boolean;
}

/**
 * `alerts.consoleURL` when set; otherwise the management API's own address, where the console is served. A wildcard
 * listening address means nothing to a recipient, so the machine's first LAN address (IPv4, not loopback) stands in
 * for it: another machine on the LAN reaches an address where it may not resolve the machine's name (`vm`, a
 * laptop's name). The machine's name is the last resort. Every guess is shown to admins (`GET /about`, the console's
 * Alerts and messages page) so they set `alerts.consoleURL`.
 */
export function consoleLinks(configured: string, api: { protocol: 'http' | 'https'; host: string; port: number; machineName: string; lanAddresses: readonly string[] }): ConsoleLinks {
  const given = configured.trim();
  if (given !== '') return { url: given.replace(/\/+$/, ''), configured: true };
  const wildcard = api.host === '0.0.0.0' || api.host === '::' || api.host === '';
  const host = wildcard ? (api.lanAddresses[0] ?? (api.machineName || 'localhost')) : api.host;
  return { url: `${api.protocol}://${host.includes(':') ? `[${host}]` : host}:${api.port}`, configured: false };
}

/** The console's address (see `consoleLinks`). */
export function consoleUrl(configured: string, api: Parameters<typeof consoleLinks>[1]): string {
  return consoleLinks(configured, api).url;
}
