/**
 * Step 1 of the transaction path: who is calling? Mutual TLS (a client certificate on the HTTPS port), then the
 * Authorization header: Basic, `Custom <token>` or `Bearer <JWT>`, each only when switched on in config.
 * No credentials at all is not a failure: public channels and whitelisted addresses need no client.
 */
import { createHash, createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { jwtVerify } from 'jose';
import type { JWTVerifyOptions } from 'jose';
import type { Collection } from '../storage/store.js';
import type { ClientRecord } from '../storage/records.js';
import { customTokenDigest, verifyClientPassword } from '../accounts/client-credentials.js';

export type ClientAuthMethod = 'mutual-tls' | 'basic' | 'custom-token' | 'jwt';

export type ClientAuthResult =
  | { outcome: 'authenticated'; client: ClientRecord; method: ClientAuthMethod }
  | { outcome: 'anonymous' }
  | { outcome: 'refused'; method: ClientAuthMethod | 'unsupported'; reason: string; claimed?: string };

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
  peer?: { fingerprint256: string; subjectCN?: string; /** chains to a trusted CA */ authorized: boolean };
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

  constructor(options: { clients: Collection<ClientRecord>; settings: ClientAuthSettings }) {
    this.#clients = options.clients;
    this.#settings = options.settings;
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

  /** Identifies the caller; never throws for bad credentials (the caller turns a refusal into a 401 and an audit). */
  async authenticate(credentials: PresentedCredentials): Promise<ClientAuthResult> {
    if (credentials.peer !== undefined && this.#settings.enableMutualTLSAuthentication) return this.#mutualTls(credentials.peer);
    const header = credentials.authorization?.trim();
    if (header === undefined || header === '') return { outcome: 'anonymous' };
    const space = header.indexOf(' ');
    const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
    const value = space < 0 ? '' : header.slice(space + 1).trim();
    if (scheme === 'basic' && this.#settings.enableBasicAuthentication) return this.#basic(value);
    if (scheme === 'custom' && this.#settings.enableCustomTokenAuthentication) return this.#customToken(value);
    if (scheme === 'bearer' && this.#settings.enableJWTAuthentication) return this.#jwt(value);
    return { outcome: 'refused', method: 'unsupported', reason: `the ${scheme} authorization scheme is not enabled` };
  }

  async #mutualTls(peer: NonNullable<PresentedCredentials['peer']>): Promise<ClientAuthResult> {
    const refuse = (reason: string): ClientAuthResult => ({ outcome: 'refused', method: 'mutual-tls', reason, claimed: peer.subjectCN });
    const registered = await this.#clients.findOne({ certFingerprint: peer.fingerprint256 });
    const client = registered ?? (peer.authorized && peer.subjectCN !== undefined ? await this.#clients.findOne({ clientDomain: peer.subjectCN }) : null);
    if (client === null) return refuse(peer.authorized ? 'no client has the domain of this certificate' : 'the certificate is neither registered nor issued by a trusted CA');
    if (client.clientDomain === undefined || client.clientDomain !== peer.subjectCN) {
      return refuse('the certificate CN does not equal the client domain');
    }
    return { outcome: 'authenticated', client, method: 'mutual-tls' };
  }

  async #basic(value: string): Promise<ClientAuthResult> {
    const decoded = /^[A-Za-z0-9+/=]+$/.test(value) ? Buffer.from(value, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (colon <= 0) return { outcome: 'refused', method: 'basic', reason: 'malformed Basic credentials' };
    const clientID = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
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
