/**
 * Headers as the transaction log keeps them: one string per header, and credentials masked, so that what a client or
 * Junction sent to authenticate is never written to the log. Re-runs drop the masked ones (pipeline/replay.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Headers that carry credentials: masked when stored. Names in lower case. */
export const SECRET_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie', 'auth-token']);

/** What the log holds instead of a secret header's value. */
export const HEADER_MASK = '********';

/** The headers as stored: names in lower case, one string per header (repeats joined), credentials masked. */
export function storedHeaders(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    out[lower] = SECRET_HEADERS.has(lower) ? HEADER_MASK : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
