/**
 * The needs-attention list answers a session this instance checked lately while the store is down (issue 38), but
 * never one that signed out, and never past the few minutes it is kept. The store's failure is injected: the sessions
 * answer until they are told the database went away.
 */
import { describe, expect, it } from 'vitest';
import { Authenticator } from '../../service/api/auth/authenticator.js';
import type { AuthenticatorDeps } from '../../service/api/auth/authenticator.js';
import { StoreError } from '../../service/storage/store.js';

function setUp() {
  let down = false;
  let now = 1_000_000;
  const session = { _id: 's1', userId: 'u1' };
  const user = { _id: 'u1', email: 'admin@clinic.example', groups: ['admin'] };
  const sessions = {
    resolve: (token: string) => (down ? Promise.reject(new StoreError('sessions: the database is unreachable')) : Promise.resolve(token === 'cookie' ? session : null)),
    destroy: () => Promise.resolve(),
  };
  const accounts = { findById: () => Promise.resolve(user) };
  const auth = new Authenticator({ sessions, accounts, now: () => now } as unknown as AuthenticatorDeps);
  return {
    auth,
    goDown: () => (down = true),
    later: (ms: number) => (now += ms),
  };
}

describe('sessions while the store is down', () => {
  it('answers a session seen lately only where the route asks for it, and only for a few minutes', async () => {
    const { auth, goDown, later } = setUp();
    expect((await auth.session('cookie'))?.user.email).toBe('admin@clinic.example');
    goDown();
    await expect(auth.session('cookie')).rejects.toBeInstanceOf(StoreError);
    expect((await auth.session('cookie', { staleIfStoreDown: true }))?.user.email).toBe('admin@clinic.example');
    await expect(auth.session('other', { staleIfStoreDown: true })).rejects.toBeInstanceOf(StoreError);
    later(10 * 60_000);
    await expect(auth.session('cookie', { staleIfStoreDown: true })).rejects.toBeInstanceOf(StoreError);
  });

  it('never answers a session that signed out', async () => {
    const { auth, goDown } = setUp();
    expect(await auth.session('cookie')).not.toBeNull();
    auth.forget('cookie');
    goDown();
    await expect(auth.session('cookie', { staleIfStoreDown: true })).rejects.toBeInstanceOf(StoreError);
  });
});
