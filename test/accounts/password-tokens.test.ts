import { describe, expect, it } from 'vitest';
import { newPasswordToken, passwordTokenDigest, RequestWindow } from '../../service/accounts/password-tokens.js';

describe('set-password tokens', () => {
  it('are random, and only their digest is kept', () => {
    const a = newPasswordToken();
    const b = newPasswordToken();
    expect(a.token).toMatch(/^[0-9a-f]{64}$/);
    expect(a.token).not.toBe(b.token);
    expect(a.hash).toBe(passwordTokenDigest(a.token));
    expect(a.hash).not.toContain(a.token);
  });
});

describe('RequestWindow', () => {
  it('allows each key its limit per window, then refuses until the window starts again', () => {
    let now = 0;
    const window = new RequestWindow({ limit: 2, windowMs: 1000, now: () => now });
    expect([window.take('a'), window.take('a'), window.take('a')]).toEqual([true, true, false]);
    expect(window.take('b')).toBe(true);
    now = 400;
    expect(window.retryAfterSeconds()).toBe(1);
    now = 1000;
    expect(window.take('a')).toBe(true);
  });
});
