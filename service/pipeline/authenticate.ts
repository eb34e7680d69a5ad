/**
 * Step 1 of the transaction path: who is calling? Mutual TLS (a client certificate on the HTTPS port), then the
 * Authorization header: Basic, `Custom <token>` or `Bearer <JWT>`, each only when switched on in config.
 * No credentials at all is not a failure: public channels and whitelisted addresses need no client.
 *
 * With a guard, failed attempts are throttled and audited here, so every transport (HTTP(S) today, TCP/TLS/MLLP next)
 * gets the same protection by calling `authenticate` with the caller's address. Which identity is counted:
 * - Basic: the client id in the header, read before anything is checked;
 * - JWT: the `sub` claim, read without verifying the signature (only to count against; a forged `sub` can only hold
 *   back the forger's own address, see domain/access/login-throttle.ts);
 * - custom token and unreadable credentials: none, so only the address limit applies;
 * - mutual TLS: not throttled at all. The TLS handshake proved the caller holds the certificate's key, so there is
 *   nothing to guess, and a valid certificate is never held back; a refused one is audited in summary all the same.
 */
import { createHash, createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { decodeJwt, jwtVerify } from 'jose';
import type { JWTVerifyOptions } from 'jose';
import { decodeBasicCredentials } from '../domain/codecs/basic-credentials.js';
import type { Collection } from '../storage/store.js';
import type { ClientRecord } from '../storage/records.js';
import { customTokenDigest, fingerprintMatches, verifyClientPassword } from '../accounts/client-credentials.js';
import type { FailureThrottle } from '../accounts/login-throttle.js';
import type { FailedLoginAudit } from '../audit/failed-logins.js';

export type ClientAuthMethod = 'mutual-tls' | 'basic' | 'custom-token' | 'jwt';

export type ClientAuthResult =
  | { outcome: 'authenticated'; client: ClientRecord; method: ClientAuthMethod }
  | { outcome: 'anonymous' }
  | { outcome: 'refused'; method: ClientAuthMethod | 'unsupported'; reason: string; claimed?: string }
  /** Too many recent failures: refused without checking the credentials (answer 429 with Retry-After). */
  | { outcome: 'throttled'; method: ClientAuthMethod | 'unsupported'; retryAfterSeconds: number; claimed?: string };

export interface ClientAuthSettings {
  enableMutualTLSAuthentication: boolean;
  enableBasicAuthentication: boolean;
  enableCustomTokenAuthentication: boolean;
  enableJWTAuthentication: boolean;
  jwt: { secretOrPublicKey?: string; algorithms: readonly string[]; audience: readonly string[]; issuer: string };
}

/** What the transport knows about the caller. */
export interface PresentedCredentials {
  authorization?: string;
  /** The TLS client certificate, when one was presented on the HTTPS port. */
  peer?: {
    fingerprint256: string;
    /** SHA-1, for a client registered by the fingerprint OpenHIM's console sends. */
    fingerprint?: string;
    subjectCN?: string;
    /** chains to a trusted CA */
    authorized: boolean;
  };
  /** The caller's network address, which the guard counts failures against. */
  address?: string;
}

/** Limits and audits failed attempts; one per service, shared by every transaction port. */
export interface ClientAuthGuard {
  throttle: FailureThrottle;
  failures: FailedLoginAudit;
}

/** Credentials read from the header, before anything costly is done with them. */
interface Attempt {
  method: ClientAuthMethod | 'unsupported';
  claimed?: string;
  check: () => Promise<ClientAuthResult>;
}

// Verified Basic credentials are remembered briefly: scrypt on every transaction would cap throughput at a few
// dozen requests per second. The key includes the stored hash, so changing the password invalidates it.
const BASIC_CACHE_MS = 5 * 60_000;
const BASIC_CACHE_MAX = 5000;

function jwtKey(secretOrPublicKey: string): KeyObject | Uint8Array {
  return secretOrPublicKey.includes('-----BEGIN') ? createPublicKey(secretOrPublicKey) : new TextEncoder().encode(secretOrPublicKey);
}

export class ClientAuthenticator {
  readonly #clients: Collection<ClientRecord>;
  readonly #settings: ClientAuthSettings;
  readonly #jwtKey: KeyObject | Uint8Array | undefined;
  readonly #jwtOptions: JWTVerifyOptions;
  readonly #basicCache = new Map<string, number>();
  readonly #guard: ClientAuthGuard | undefined;
  readonly #inflight = new Map<string, Promise<ClientAuthResult>>();

  /** Without a guard nothing is throttled or audited (for tests of the credential checks alone). */
  constructor(options: { clients: Collection<ClientRecord>; settings: ClientAuthSettings; guard?: ClientAuthGuard }) {
    this.#clients = options.clients;
    this.#settings = options.settings;
    this.#guard = options.guard;
    const { jwt } = options.settings;
    this.#jwtKey = options.settings.enableJWTAuthentication && jwt.secretOrPublicKey !== undefined ? jwtKey(jwt.secretOrPublicKey) : undefined;
    this.#jwtOptions = {
      algorithms: [...jwt.algorithms],
      ...(jwt.audience.length > 0 ? { audience: [...jwt.audience] } : {}),
      ...(jwt.issuer !== '' ? { issuer: jwt.issuer } : {}),
    };
  }

  /** True when a refusal should carry `WWW-Authenticate: Basic`. */
  get challengesBasic(): boolean {
    return this.#settings.enableBasicAuthentication;
  }

  /**
   * Identifies the caller; never throws for bad credentials (the caller answers a refusal with 401 and a throttled
   * attempt with 429). With a guard, a failure is counted and audited here, and a throttled attempt costs no lookup,
   * no hash and no audit write of its own.
   */
  async authenticate(credentials: PresentedCredentials): Promise<ClientAuthResult> {
    const address = credentials.address ?? '';
    if (credentials.peer !== undefined && this.#settings.enableMutualTLSAuthentication) {
      const result = await this.#mutualTls(credentials.peer);
      if (result.outcome === 'refused') await this.#guard?.failures.failed({ claimed: result.claimed, address, method: result.method, reason: result.reason });
      return result;
    }
    const header = credentials.authorization?.trim();
    if (header === undefined || header === '') return { outcome: 'anonymous' };
    return this.#guarded(header, this.#attempt(header), address);
  }

  #attempt(header: string): Attempt {
    const space = header.indexOf(' ');
    const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
    const value = space < 0 ? '' : header.slice(space + 1).trim();
    if (scheme === 'basic' && this.#settings.enableBasicAuthentication) {
      const credentials = decodeBasicCredentials(value);
      if (credentials === null) return { method: 'basic', check: () => Promise.resolve({ outcome: 'refused', method: 'basic', reason: 'malformed Basic credentials' }) };
      const { username: clientID, password } = credentials;
      return { method: 'basic', claimed: clientID, check: () => this.#basic(clientID, password) };
    }
    if (scheme === 'custom' && this.#settings.enableCustomTokenAuthentication) return { method: 'custom-token', check: () => this.#customToken(value) };
    if (scheme === 'bearer' && this.#settings.enableJWTAuthentication) {
      const subject = unverifiedSubject(value);
      return { method: 'jwt', ...(subject === undefined ? {} : { claimed: subject }), check: () => this.#jwt(value) };
    }
    const reason = `the ${scheme} authorization scheme is not enabled`;
    return { method: 'unsupported', check: () => Promise.resolve({ outcome: 'refused', method: 'unsupported', reason }) };
  }

  /**
   * Runs one check under the throttle. The throttle is consulted before any await, and an attempt in progress counts
   * against the limit, so a burst of concurrent guesses cannot all start before the first one fails. Identical
   * credentials in flight share one check (and one place in the limit): a client's burst of requests is one attempt.
   */
  async #guarded(header: string, attempt: Attempt, address: string): Promise<ClientAuthResult> {
    const guard = this.#guard;
    if (guard === undefined) return attempt.check();
    const { claimed, method } = attempt;
    const retryAfterSeconds = guard.throttle.retryAfterSeconds(claimed, address);
    if (retryAfterSeconds > 0) {
      await guard.failures.refused({ claimed, address, method });
      return { outcome: 'throttled', method, retryAfterSeconds, ...(claimed === undefined ? {} : { claimed }) };
    }
    const key = createHash('sha256').update(header).digest('base64');
    let settle: (() => void) | undefined;
    let check = this.#inflight.get(key);
    if (check === undefined) {
      settle = guard.throttle.begin(claimed, address);
      check = attempt.check().finally(() => this.#inflight.delete(key));
      this.#inflight.set(key, check);
    }
    try {
      const result = await check;
      if (result.outcome === 'authenticated' && claimed !== undefined) guard.throttle.recordSuccess(claimed, address);
      if (result.outcome === 'refused') {
        // Counted before the attempt stops being pending, so there is no moment when it counts as neither.
        guard.throttle.recordFailure(claimed, address);
        settle?.();
        await guard.failures.failed({ claimed: result.claimed ?? claimed, address, method: result.method, reason: result.reason });
      }
      return result;
    } finally {
      settle?.();
    }
  }

  async #mutualTls(peer: NonNullable<PresentedCredentials['peer']>): Promise<ClientAuthResult> {
    const refuse = (reason: string): ClientAuthResult => ({ outcome: 'refused', method: 'mutual-tls', reason, claimed: peer.subjectCN });
    // A client is registered by its certificate's SHA-256 fingerprint, or by the SHA-1 one OpenHIM's console sends.
    const bySha256 = await this.#clients.findOne({ certFingerprint: peer.fingerprint256 });
    const found = bySha256 ?? (peer.fingerprint === undefined ? null : await this.#clients.findOne({ certFingerprint: peer.fingerprint }));
    const registered = found?.certFingerprint !== undefined && fingerprintMatches(found.certFingerprint, peer) ? found : null;
    const client = registered ?? (peer.authorized && peer.subjectCN !== undefined ? await this.#clients.findOne({ clientDomain: peer.subjectCN }) : null);
    if (client === null) return refuse(peer.authorized ? 'no client has the domain of this certificate' : 'the certificate is neither registered nor issued by a trusted CA');
    if (client.clientDomain === undefined || client.clientDomain !== peer.subjectCN) {
      return refuse('the certificate CN does not equal the client domain');
    }
    return { outcome: 'authenticated', client, method: 'mutual-tls' };
  }

  async #basic(clientID: string, password: string): Promise<ClientAuthResult> {
    const client = await this.#clients.findOne({ clientID });
    const key = createHash('sha256').update(`${client?._id ?? ''}\0${client?.passwordHash ?? ''}\0${password}`).digest('hex');
    const now = Date.now();
    if (client !== null && (this.#basicCache.get(key) ?? 0) > now) return { outcome: 'authenticated', client, method: 'basic' };
    const ok = await verifyClientPassword(client ?? {}, password);
    if (client === null || !ok) return { outcome: 'refused', method: 'basic', reason: 'wrong client id or password', claimed: clientID };
    if (this.#basicCache.size >= BASIC_CACHE_MAX) this.#basicCache.clear();
    this.#basicCache.set(key, now + BASIC_CACHE_MS);
    return { outcome: 'authenticated', client, method: 'basic' };
  }

  async #customToken(token: string): Promise<ClientAuthResult> {
    if (token === '') return { outcome: 'refused', method: 'custom-token', reason: 'empty custom token' };
    const client = await this.#clients.findOne({ customTokenHash: customTokenDigest(token) });
    return client === null
      ? { outcome: 'refused', method: 'custom-token', reason: 'unknown custom token' }
      : { outcome: 'authenticated', client, method: 'custom-token' };
  }

  async #jwt(token: string): Promise<ClientAuthResult> {
    if (this.#jwtKey === undefined) return { outcome: 'refused', method: 'jwt', reason: 'no JWT key is configured' };
    let subject: string | undefined;
    try {
      const { payload } = await jwtVerify(token, this.#jwtKey, this.#jwtOptions);
      subject = payload.sub;
    } catch (err) {
      return { outcome: 'refused', method: 'jwt', reason: `invalid JWT: ${(err as Error).message}` };
    }
    if (subject === undefined || subject === '') return { outcome: 'refused', method: 'jwt', reason: 'the JWT has no sub claim' };
    const client = await this.#clients.findOne({ clientID: subject });
    return client === null
      ? { outcome: 'refused', method: 'jwt', reason: 'no client has the JWT subject as its clientID', claimed: subject }
      : { outcome: 'authenticated', client, method: 'jwt' };
  }
}

/** The `sub` of a JWT, read without verification: only to know whom an attempt claims to be. */
function unverifiedSubject(token: string): string | undefined {
  try {
    const { sub } = decodeJwt(token);
    return typeof sub === 'string' && sub !== '' ? sub : undefined;
  } catch {
    return undefined;
  }
}
