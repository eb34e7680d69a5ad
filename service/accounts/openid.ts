/**
 * OpenID Connect sign-in (authorization code flow with PKCE) with `openid-client`: the provider's settings come from
 * discovery, each sign-in started here keeps its state, nonce and PKCE verifier in a pending record bound to the
 * browser that started it (one use, short-lived), and a finished sign-in maps the verified claims to a user.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import * as oidc from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';
import type { RequestInit } from 'undici';
import { AppError } from '../errors.js';
import { claimedUser } from '../domain/access/openid-claims.js';
import type { ClaimMapping } from '../domain/access/openid-claims.js';
import type { UserRecord } from '../storage/records.js';
import type { UserAccounts } from './users.js';

/** The `api.openid` settings this module uses. */
export interface OpenIdSettings extends ClaimMapping {
  issuerUrl: string;
  clientId: string;
  clientSecret?: string | undefined;
  /** Empty: the caller's own origin (the console served by the API). */
  callbackUrl: string;
  scope: string;
  createUsers: boolean;
  displayName: string;
}

/** What `POST /authenticate/openid` carries: OpenHIM's `{code, state, sessionState}`, and `iss` when the provider sent it. */
export interface OpenIdCallback {
  code: string;
  state: string;
  sessionState?: string | undefined;
  iss?: string | undefined;
}

interface Pending {
  nonce: string;
  verifier: string;
  /** sha256 of the browser's binding cookie: the sign-in must finish in the browser that started it. */
  binding: string;
  redirectUri: string;
  expires: number;
}

/** A sign-in must come back within this time. */
export const PENDING_LIFETIME_MS = 10 * 60_000;
// Starting a sign-in is public, so the pending records are capped: past this the oldest are dropped.
const MAX_PENDING = 1000;
const DISCOVERY_TIMEOUT_SECONDS = 10;

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Why a sign-in failed, for the audit log and the answer; the provider's own words when it gave them. */
function refusal(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof oidc.ResponseBodyError) {
    const why = error.error_description === undefined ? error.error : `${error.error}: ${error.error_description}`;
    return new AppError('OPENID_REFUSED', `The OpenID provider refused the sign-in (${why}); the code may be used already or expired: sign in again`);
  }
  if (error instanceof oidc.AuthorizationResponseError) {
    return new AppError('OPENID_REFUSED', `The OpenID provider answered with an error: ${error.error}`);
  }
  if (error instanceof oidc.ClientError) {
    const cause = error.cause instanceof Error ? error.cause : null;
    // A provider that cannot be reached or answers nonsense is not the user's fault.
    if (error.code === 'OAUTH_TIMEOUT' || cause?.name === 'TimeoutError' || (cause !== null && /fetch failed|ECONNREFUSED|ENOTFOUND/i.test(cause.message))) {
      return new AppError('OPENID_PROVIDER_UNAVAILABLE', `The OpenID provider could not be reached: ${cause?.message ?? error.message}`);
    }
    // The library's own cause names the check (`unexpected ID Token "nonce" claim value`).
    const detail = cause !== null && cause.message !== error.message ? `${error.message} (${cause.message})` : error.message;
    return new AppError('OPENID_REFUSED', `The OpenID provider's answer failed a check: ${detail}`);
  }
  if (error instanceof TypeError && /fetch failed/i.test(error.message)) {
    const cause = error.cause instanceof Error ? error.cause.message : error.message;
    return new AppError('OPENID_PROVIDER_UNAVAILABLE', `The OpenID provider could not be reached: ${cause}`);
  }
  return new AppError('OPENID_REFUSED', `The OpenID sign-in failed: ${error instanceof Error ? error.message : String(error)}`);
}

export class OpenIdSignIn {
  readonly #settings: OpenIdSettings;
  readonly #accounts: UserAccounts;
  readonly #now: () => number;
  readonly #pending = new Map<string, Pending>();
  #configuration: Promise<oidc.Configuration> | null = null;
  #agent: Agent;

  /** `trustedCAs` are the keystore's CAs, trusted beside the system's for the provider's certificate. */
  constructor(options: { settings: OpenIdSettings; accounts: UserAccounts; trustedCAs?: readonly string[]; now?: () => number }) {
    this.#settings = options.settings;
    this.#accounts = options.accounts;
    this.#now = options.now ?? Date.now;
    this.#agent = agentFor(options.trustedCAs ?? []);
  }

  /** Checks the provider against a new CA list from the next request on (a keystore change, no restart). */
  useTrustedCAs(trustedCAs: readonly string[]): void {
    const old = this.#agent;
    this.#agent = agentFor(trustedCAs);
    void old.close().catch(() => undefined);
  }

  /** Closes the provider connections. */
  close(): Promise<void> {
    return this.#agent.close().catch(() => undefined);
  }

  // openid-client's requests go through this, so the provider is checked against the keystore's CAs as well as the
  // system's: a clinic's own identity provider often has a certificate from the clinic's own CA.
  readonly #fetch: oidc.CustomFetch = (url, options) =>
    // The two fetch types differ only in their lib typings (undici's own classes against the DOM's).
    undiciFetch(url, { ...(options as RequestInit), dispatcher: this.#agent }) as unknown as Promise<Response>;

  get displayName(): string {
    return this.#settings.displayName;
  }

  /** The provider's discovered settings, fetched once; a failed discovery is tried again at the next sign-in. */
  #discover(): Promise<oidc.Configuration> {
    if (this.#configuration !== null) return this.#configuration;
    const { issuerUrl, clientId, clientSecret } = this.#settings;
    const issuer = new URL(issuerUrl);
    const auth = clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(clientSecret);
    // Config checks allow plain http only for a provider on this machine.
    const execute = issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [];
    const found = oidc.discovery(issuer, clientId, undefined, auth, { execute, timeout: DISCOVERY_TIMEOUT_SECONDS, [oidc.customFetch]: this.#fetch }).then((configuration) => {
      configuration[oidc.customFetch] = this.#fetch;
      return configuration;
    });
    this.#configuration = found;
    found.catch(() => {
      if (this.#configuration === found) this.#configuration = null;
    });
    return found;
  }

  #prune(): void {
    const now = this.#now();
    for (const [state, pending] of this.#pending) if (pending.expires <= now) this.#pending.delete(state);
    while (this.#pending.size >= MAX_PENDING) {
      const oldest = this.#pending.keys().next().value;
      if (oldest === undefined) break;
      this.#pending.delete(oldest);
    }
  }

  /**
   * Starts a sign-in: the provider's authorization URL, and the binding value the browser must keep (in an HttpOnly
   * cookie) and show again when it finishes. `origin` is the API's own origin, for the default callback URL.
   */
  async start(origin: string): Promise<{ url: string; binding: string }> {
    const configuration = await this.#discover().catch((error: unknown) => {
      throw refusal(error);
    });
    this.#prune();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const verifier = oidc.randomPKCECodeVerifier();
    const binding = randomBytes(32).toString('base64url');
    const redirectUri = this.#settings.callbackUrl === '' ? `${origin}/` : this.#settings.callbackUrl;
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: this.#settings.scope,
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    this.#pending.set(state, { nonce, verifier, binding: digest(binding).toString('hex'), redirectUri, expires: this.#now() + PENDING_LIFETIME_MS });
    return { url: url.href, binding };
  }

  /**
   * The state's pending record, spent now (a second use finds nothing), if the browser's binding matches. The
   * record is spent even on a mismatch: a state that was shown to another browser is not trusted again.
   */
  #take(state: string, binding: string | undefined): Pending {
    const pending = this.#pending.get(state);
    this.#pending.delete(state);
    if (pending === undefined) throw new AppError('OPENID_STATE_INVALID', 'The sign-in state is unknown or was used already: start the sign-in again');
    if (pending.expires <= this.#now()) throw new AppError('OPENID_STATE_INVALID', 'The sign-in took longer than 10 minutes: start it again');
    const expected = Buffer.from(pending.binding, 'hex');
    if (binding === undefined || !timingSafeEqual(digest(binding), expected)) {
      throw new AppError('OPENID_STATE_INVALID', 'The sign-in was started in another browser (its cookie is missing or different): start it again here');
    }
    return pending;
  }

  /**
   * Finishes a sign-in: checks the state and its browser, exchanges the code (PKCE), verifies the ID token and its
   * nonce, reads the claims (ID token, then userinfo) and maps them to a user. Errors name the problem; `seen.email`
   * is the email the claims named, once known, for the audit log.
   */
  async finish(callback: OpenIdCallback, binding: string | undefined, seen: { email?: string } = {}): Promise<UserRecord> {
    const pending = this.#take(callback.state, binding);
    let claims: Record<string, unknown>;
    try {
      const configuration = await this.#discover();
      const current = new URL(pending.redirectUri);
      current.searchParams.set('code', callback.code);
      current.searchParams.set('state', callback.state);
      if (callback.sessionState !== undefined) current.searchParams.set('session_state', callback.sessionState);
      // OpenHIM's console sends no `iss`; with one configured provider there is no mix-up to guard against, so its
      // issuer stands in when a provider that announces the parameter is answered without it.
      const issuer = configuration.serverMetadata().issuer;
      const announcesIss = configuration.serverMetadata().authorization_response_iss_parameter_supported === true;
      if (callback.iss !== undefined) current.searchParams.set('iss', callback.iss);
      else if (announcesIss) current.searchParams.set('iss', issuer);
      const tokens = await oidc.authorizationCodeGrant(configuration, current, {
        pkceCodeVerifier: pending.verifier,
        expectedState: callback.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims();
      if (idClaims === undefined) throw new AppError('OPENID_REFUSED', 'The OpenID provider sent no ID token');
      claims = { ...idClaims };
      if (configuration.serverMetadata().userinfo_endpoint !== undefined) {
        const info = await oidc.fetchUserInfo(configuration, tokens.access_token, idClaims.sub);
        claims = { ...claims, ...info };
      }
    } catch (error) {
      throw refusal(error);
    }
    const claimed = claimedUser(claims, this.#settings);
    if ('problem' in claimed) throw new AppError('OPENID_REFUSED', `The OpenID sign-in named no user: ${claimed.problem}`);
    seen.email = claimed.email;
    return this.#accounts.signInFromProvider(claimed, this.#settings.createUsers);
  }
}

function agentFor(trustedCAs: readonly string[]): Agent {
  return new Agent({ connect: { ca: [...rootCertificates, ...trustedCAs] } });
}
