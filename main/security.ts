/**
 * The window's security decisions, as pure functions: which URLs stay in the app, which open in the system browser,
 * which certificate is trusted (only the service's own, by SHA-256 fingerprint) and which permissions a page gets
 * (almost none). window.ts applies them to Electron's hooks.
 */
import { X509Certificate, timingSafeEqual } from 'node:crypto';

/** What to do with a URL a page wants to open or navigate to. */
export type LinkDecision = 'allow' | 'open-external' | 'deny';

/** The origin (`https://127.0.0.1:8080`) of an http(s) URL; null for anything else or an unparsable string. */
export function httpOrigin(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : null;
}

/** True when `url` belongs to the service's origin (scheme, host and port all equal). */
export function isAppUrl(url: string, appOrigin: string | null): boolean {
  return appOrigin !== null && httpOrigin(url) === appOrigin;
}

/**
 * A navigation or a new window: the service's own pages stay in the app, other web pages go to the system browser,
 * and every other scheme (file:, javascript:, data:, custom protocols) is refused.
 */
export function decideNavigation(url: string, appOrigin: string | null): LinkDecision {
  if (isAppUrl(url, appOrigin)) return 'allow';
  return httpOrigin(url) === null ? 'deny' : 'open-external';
}

/** A server redirect: followed only within the service's origin (never handed to the browser, it was not a click). */
export function decideRedirect(url: string, appOrigin: string | null): LinkDecision {
  return isAppUrl(url, appOrigin) ? 'allow' : 'deny';
}

const HEX_FINGERPRINT = /^(?:[0-9a-f]{2}:){31}[0-9a-f]{2}$|^[0-9a-f]{64}$/i;
const ELECTRON_FINGERPRINT = /^sha256\/([A-Za-z0-9+/]{43}=)$/;

/**
 * A SHA-256 fingerprint as 64 lower-case hex digits, from Node's form (`AB:CD:...`), bare hex, or Electron's
 * `sha256/<base64>`; null when the value is none of those.
 */
export function normaliseFingerprint(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (HEX_FINGERPRINT.test(text)) return text.replaceAll(':', '').toLowerCase();
  const base64 = ELECTRON_FINGERPRINT.exec(text)?.[1];
  if (base64 === undefined) return null;
  const bytes = Buffer.from(base64, 'base64');
  return bytes.length === 32 ? bytes.toString('hex') : null;
}

/** True when both are valid SHA-256 fingerprints of the same certificate. */
export function fingerprintsMatch(a: string | null | undefined, b: string | null | undefined): boolean {
  const left = normaliseFingerprint(a);
  const right = normaliseFingerprint(b);
  if (left === null || right === null) return false;
  return timingSafeEqual(Buffer.from(left, 'hex'), Buffer.from(right, 'hex'));
}

/** The SHA-256 fingerprint of a PEM certificate (normalised), or null if it does not parse. */
export function pemFingerprint(pem: string): string | null {
  try {
    return normaliseFingerprint(new X509Certificate(pem).fingerprint256);
  } catch {
    return null;
  }
}

/** What the service told the shell to trust, from its ready message. */
export interface PinnedService {
  /** Origin of the console and API, e.g. `https://127.0.0.1:8080`. */
  origin: string;
  /** SHA-256 of the service's certificate; null when the API runs over plain HTTP (then no certificate is trusted). */
  fingerprint256: string | null;
}

/** A certificate a server presented, as Electron describes it. */
export interface PresentedCertificate {
  hostname: string;
  /** PEM of the leaf certificate. */
  pem: string;
  /** Electron's own fingerprint (`sha256/<base64>`), used when the PEM cannot be read. */
  fingerprint?: string;
}

/**
 * Trust a certificate only if it is the service's own (same SHA-256) and is presented for the service's host.
 * Everything else is refused, including certificates a public CA would accept: the window shows nothing else.
 */
export function decideCertificate(pinned: PinnedService | null, presented: PresentedCertificate): 'trust' | 'refuse' {
  if (pinned === null || pinned.fingerprint256 === null) return 'refuse';
  if (bareHost(presented.hostname) !== bareHost(new URL(pinned.origin).hostname)) return 'refuse';
  const actual = pemFingerprint(presented.pem) ?? normaliseFingerprint(presented.fingerprint);
  return fingerprintsMatch(actual, pinned.fingerprint256) ? 'trust' : 'refuse';
}

function bareHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

/** Permissions the console may have: writing to the clipboard (copy buttons). Nothing else: no camera, no location. */
const ALLOWED_PERMISSIONS = new Set(['clipboard-sanitized-write']);

/** Whether a page at `requestingUrl` gets `permission`: only the service's own pages, and only harmless ones. */
export function allowPermission(permission: string, requestingUrl: string, appOrigin: string | null): boolean {
  return ALLOWED_PERMISSIONS.has(permission) && isAppUrl(requestingUrl, appOrigin);
}

/** The URL the window loads for the service's `apiUrl` (the console is served at `/`). */
export function consoleUrl(apiUrl: string): string {
  const origin = httpOrigin(apiUrl);
  if (origin === null) throw new Error(`not an http(s) URL: ${apiUrl}`);
  return `${origin}/`;
}
