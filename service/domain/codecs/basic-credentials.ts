/**
 * HTTP Basic credentials (RFC 7617): `Authorization: Basic base64(user-id ":" password)`. Both the management API
 * (users) and the transaction ports (clients) accept them; this is the one reading of the header for both.
 */

export interface BasicCredentials {
  /** The user-id before the first colon: a user's email on the API, a client's clientID on the transaction ports. */
  username: string;
  /** Everything after the first colon (it may contain colons). */
  password: string;
}

const BASE64 = /^[A-Za-z0-9+/=]+$/;
const BASIC_HEADER = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i;

/** Decodes the credentials that follow the `Basic` scheme; null when they are not base64 or have no user-id. */
export function decodeBasicCredentials(encoded: string): BasicCredentials | null {
  if (!BASE64.test(encoded)) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Splits a whole `Authorization: Basic ...` value; null when it is not Basic or not well formed. */
export function parseBasicAuthorization(header: string): BasicCredentials | null {
  const encoded = BASIC_HEADER.exec(header)?.[1];
  return encoded === undefined ? null : decodeBasicCredentials(encoded);
}
