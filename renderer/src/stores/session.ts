/**
 * Who is signed in. `status` drives the whole console: unknown (asking /me), signedOut (sign-in page),
 * mustChangePassword (first-run change), signedIn, and expired (the page stays and a sign-in dialog covers it; the
 * API call that found the session gone waits for it and is then repeated).
 */
import { create } from 'zustand';
import type { PublicUser } from '../../../service/contracts/api';
import type { LoginAnswer, SessionAnswer } from '../../../service/contracts/users';
import { api, ApiError, seg } from '../api/client';
import { live } from '../api/live';
import type { OpenIdReturn } from '../api/openid';

export type SessionStatus = 'unknown' | 'signedOut' | 'mustChangePassword' | 'signedIn' | 'expired';

interface SessionState {
  status: SessionStatus;
  user: PublicUser | null;
  /** Asks the server who this browser is signed in as. */
  check: () => Promise<void>;
  signIn: (email: string, password: string) => Promise<void>;
  /** Finishes an OpenID sign-in with what the provider sent back; a failure lands on the sign-in page, said there. */
  finishOpenId: (back: OpenIdReturn) => Promise<void>;
  /** Why the last OpenID sign-in failed, shown on the sign-in page. */
  openIdError: unknown;
  changePassword: (password: string) => Promise<void>;
  signOut: () => Promise<void>;
  /** Gives up on an expired session: back to the sign-in page. */
  abandon: () => void;
}

let waiting: ((signedIn: boolean) => void)[] = [];

function settleWaiting(signedIn: boolean): void {
  const pending = waiting;
  waiting = [];
  for (const resolve of pending) resolve(signedIn);
}

export const useSession = create<SessionState>()((set, get) => {
  const enter = (user: PublicUser) => {
    set({ user, status: user.passwordChangeRequired ? 'mustChangePassword' : 'signedIn' });
    if (!user.passwordChangeRequired) {
      api.setReauthHandler(() => {
        if (get().status !== 'expired') set({ status: 'expired' });
        return new Promise<boolean>((resolve) => waiting.push(resolve));
      });
      live.start();
    }
  };
  return {
    status: 'unknown',
    user: null,
    openIdError: null,
    async check() {
      try {
        const { user } = await api.request<SessionAnswer>('/me', { noReauth: true });
        enter(user);
      } catch (err) {
        if (err instanceof ApiError && (err.status === 404 || err.status === 401)) {
          set({ status: 'signedOut', user: null });
          return;
        }
        throw err;
      }
    },
    async signIn(email, password) {
      const { user } = await api.request<LoginAnswer>('/authenticate/local', { method: 'POST', body: { username: email, password }, noReauth: true });
      const wasExpired = get().status === 'expired';
      const previous = get().user;
      enter(user);
      if (wasExpired) {
        // Someone else signing in at an expired console gets a fresh console, not the last user's page.
        if (previous !== null && previous.email !== user.email) {
          settleWaiting(false);
          window.location.hash = '#/';
          window.location.reload();
          return;
        }
        settleWaiting(true);
      }
    },
    async finishOpenId(back) {
      try {
        if (back.error !== undefined) throw new Error(`The sign-in provider refused: ${back.error}`);
        const { user } = await api.request<LoginAnswer>('/authenticate/openid', {
          method: 'POST',
          body: { code: back.code, state: back.state, ...(back.sessionState === undefined ? {} : { sessionState: back.sessionState }), ...(back.iss === undefined ? {} : { iss: back.iss }) },
          noReauth: true,
        });
        set({ openIdError: null });
        enter(user);
      } catch (err) {
        set({ status: 'signedOut', user: null, openIdError: err });
      }
    },
    async changePassword(password) {
      const user = get().user;
      if (user === null) throw new Error('Not signed in');
      const updated = await api.request<PublicUser>(`/users/${seg(user.email)}`, { method: 'PUT', body: { password }, noReauth: true });
      enter({ ...user, ...updated, passwordChangeRequired: false });
    },
    async signOut() {
      live.stop();
      api.setReauthHandler(null);
      try {
        await api.request('/logout', { noReauth: true });
      } finally {
        settleWaiting(false);
        set({ status: 'signedOut', user: null });
      }
    },
    abandon() {
      live.stop();
      api.setReauthHandler(null);
      settleWaiting(false);
      set({ status: 'signedOut', user: null });
    },
  };
});

/** True for members of the admin group (super users). */
export function isAdmin(user: PublicUser | null): boolean {
  return user?.groups.includes('admin') ?? false;
}
