/**
 * Which management API requests a browser may have been made to send by a page of another site, and which callers
 * are browsers at all. Pure: the decisions read request headers only.
 *
 * A browser attaches the session cookie, and Basic credentials it once cached, to requests any page starts. Pages
 * of other origins cannot read the answers, but a simple request (a form post, or `fetch` in `no-cors` mode) still
 * reaches the server and changes state. Such a request always names its page in `Origin` (modern browsers send it on
 * every request but GET and HEAD) or is marked `Sec-Fetch-Site: cross-site`; scripts and mediators send neither.
 */

/** The request headers these decisions read (Node's lower-case names; a repeated header as an array). */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Methods that must not change anything; every other method is checked. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What a page of another origin can send without a preflight: the form encodings, or no body at all. */
const FORM_CONTENT_TYPES: ReadonlySet<string> = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

/** The header the console sends on every call; a page of another origin cannot add it without a preflight. */
export const CONSOLE_MARKER_HEADER = 'x-requested-with';

function first(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : value?.[0];
}

/** `host[:port]` as a URL of `protocol` writes it: lower case, the protocol's default port left out. */
function normalHost(host: string, protocol: string): string | null {
  try {
    return new URL(`${protocol}//${host.trim()}`).host;
  } catch {
    return null;
  }
}

/**
 * True when the page's origin is this server as the browser addressed it: the `Host` it sent the request to, or the
 * `X-Forwarded-Host` a reverse proxy in front of Junction passed on (a page cannot set that header on a request to
 * another origin without a preflight, which the API refuses to origins it does not name).
 */
function isOwnOrigin(origin: URL, headers: RequestHeaders): boolean {
  const hosts = [first(headers, 'host'), ...(first(headers, 'x-forwarded-host')?.split(',') ?? [])];
  return hosts.some((host) => host !== undefined && host.trim() !== '' && normalHost(host, origin.protocol) === origin.host);
}

/** Why a request is refused as coming from another site's page, or null when it may go on. */
export function crossSiteRefusal(method: string, headers: RequestHeaders, allowedOrigins: ReadonlySet<string>): string | null {
  if (SAFE_METHODS.has(method.toUpperCase())) return null;
  return originRefusal(headers, allowedOrigins);
}

/**
 * Why a request's page is not one of this server's or a configured console's, or null when it is (or when no page
 * is named and the request is not marked as another site's: a script or a mediator). Also what the live feed's
 * handshake is checked with, whatever its method.
 */
export function originRefusal(headers: RequestHeaders, allowedOrigins: ReadonlySet<string>): string | null {
  const origin = first(headers, 'origin');
  if (origin === undefined) {
    const site = first(headers, 'sec-fetch-site');
    // A browser that leaves Origin out still says whether the page was this origin's.
    if (site === 'cross-site' || site === 'same-site') return `a page of another ${site === 'cross-site' ? 'site' : 'origin'} (Sec-Fetch-Site: ${site}) without an Origin header`;
    return null;
  }
  if (allowedOrigins.has(origin)) return null;
  // `null` is what sandboxed frames, data: URLs and some redirects send: a page that cannot be named is not trusted.
  if (!URL.canParse(origin)) return `a page whose origin is ${JSON.stringify(origin.slice(0, 200))}`;
  const url = new URL(origin);
  if (isOwnOrigin(url, headers)) return null;
  return `a page of ${url.origin}`;
}

/**
 * Why a POST that carries neither a JSON body nor the console's header is refused, or null. Such a POST is exactly
 * what a page of another origin can send with the user's credentials without a preflight (a form, or `fetch` with
 * no body), so a bodyless state change such as `POST /restart` must say it is meant.
 */
export function unmarkedPostRefusal(method: string, headers: RequestHeaders): string | null {
  // OpenHIM's token scheme's headers mark a request as surely as the console's: a page cannot add them either.
  if (method.toUpperCase() !== 'POST' || first(headers, CONSOLE_MARKER_HEADER) !== undefined || first(headers, 'auth-username') !== undefined) return null;
  const type = first(headers, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== undefined && type !== '' && !FORM_CONTENT_TYPES.has(type)) return null;
  return `a POST ${type === undefined || type === '' ? 'without a body' : `with a ${type} body`}`;
}

/**
 * True when the caller looks like a browser: it sends fetch metadata (every current browser sends Sec-Fetch-Site and
 * Sec-Fetch-Dest; Node's fetch sends only Sec-Fetch-Mode, so that one is not read), an Origin, the console's header,
 * or asks for HTML. A 401 to a browser carries no `WWW-Authenticate: Basic` challenge, which would
 * open the browser's own password dialog and make it send the cached credentials to this server from any page;
 * scripts and mediators still get it.
 */
export function isBrowserRequest(headers: RequestHeaders): boolean {
  if (['sec-fetch-site', 'sec-fetch-dest', 'origin', CONSOLE_MARKER_HEADER].some((name) => first(headers, name) !== undefined)) return true;
  return /\btext\/html\b/i.test(first(headers, 'accept') ?? '');
}
