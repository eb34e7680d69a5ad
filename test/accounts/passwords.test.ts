import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashPassword, legacyTokenCredential, legacyTokenMatches, verifyPassword } from '../../service/accounts/passwords.js';
import { passwordProblem } from '../../service/domain/access/password-policy.js';

describe('password hashing', () => {
  it('hashes with scrypt and a random salt, and verifies only the right password', async () => {
    const a = await hashPassword('sunny-day-123');
    const b = await hashPassword('sunny-day-123');
    expect(a).toMatch(/^scrypt\$15\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('sunny-day-123', a)).toBe(true);
    expect(await verifyPassword('sunny-day-124', a)).toBe(false);
  });

  it('never matches a missing, malformed or tampered hash', async () => {
    expect(await verifyPassword('x', null)).toBe(false);
    expect(await verifyPassword('x', 'plain-text')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$40$8$1$AAAA$AAAA')).toBe(false);
  });

  it('builds the legacy token credential exactly as OpenHIM clients compute it', () => {
    const credential = legacyTokenCredential('pw-123456');
    expect(credential.hash).toBe(createHash('sha512').update(credential.salt + 'pw-123456').digest('hex'));
    const ts = new Date().toISOString();
    const token = createHash('sha512').update(credential.hash + 'client-salt' + ts).digest('hex');
    expect(legacyTokenMatches(credential, 'client-salt', ts, token)).toBe(true);
    expect(legacyTokenMatches(credential, 'other-salt', ts, token)).toBe(false);
  });

  it('applies the password rules', () => {
    expect(passwordProblem('short', { email: 'a@b.example' })).toMatch(/at least 8/);
    expect(passwordProblem('a@b.example', { email: 'A@B.example' })).toMatch(/email/);
    expect(passwordProblem('junction-password', { email: 'a@b.example', defaultPassword: 'junction-password' })).toMatch(/default/);
    expect(passwordProblem('a-fine-password', { email: 'a@b.example' })).toBeNull();
  });
});
