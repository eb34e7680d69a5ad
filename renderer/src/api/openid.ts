/** OpenID Connect sign-in: the button's label, the provider's sign-in URL, and what the provider sent back. */
import { api } from './client';

/** Public: the name on the "Sign in with ..." button. */
export function openIdInfo(signal?: AbortSignal): Promise<{ displayName: string }> {
  return api.request<{ displayName: string }>('/authentication/openid', { noReauth: true, signal });
}

/** Public: starts a sign-in (the server keeps its state for this browser) and gives the provider's URL to go to. */
export function startOpenId(): Promise<{ url: string }> {
  return api.request<{ url: string }>('/authenticate/openid/start', { noReauth: true });
}

/** What the provider put in the console's address when it sent the browser back, or null when it did not. */
export interface OpenIdReturn {
  code?: string;
  state?: string;
  sessionState?: string;
  iss?: string;
  /** The provider's refusal (`access_denied` ...), with its description. */
  error?: string;
}

/** Reads an OpenID return from a query string (`?code=...&state=...`); null when there is none. */
export function openIdReturn(search: string): OpenIdReturn | null {
  const params = new URLSearchParams(search);
  const error = params.get('error');
  if (error !== null && params.has('state')) {
    const description = params.get('error_description');
    return { error: description === null ? error : `${error}: ${description}` };
  }
  const code = params.get('code');
  const state = params.get('state');
  if (code === null || state === null) return null;
  const sessionState = params.get('session_state');
  const iss = params.get('iss');
  return { code, state, ...(sessionState === null ? {} : { sessionState }), ...(iss === null ? {} : { iss }) };
}
