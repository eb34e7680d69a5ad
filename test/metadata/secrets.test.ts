/** Sealing exported secrets with a passphrase: what opens, and what must not (another passphrase, a changed file, a moved record). */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../service/errors.js';
import { checkPassphrase, isEncryptedSecrets, SecretOpener, SecretSealer } from '../../service/metadata/secrets.js';

describe('export secrets', () => {
  const secrets = [{ path: ['passwordHash'], value: 'scrypt$15$8$1$c2FsdA==$aGFzaA==' }];

  it('opens with the passphrase they were sealed with, in the collection they were sealed for', async () => {
    const sealer = await SecretSealer.create('clinic export passphrase');
    const sealed = sealer.seal(secrets, 'Users');
    expect(isEncryptedSecrets(sealed)).toBe(true);
    expect(JSON.stringify(sealed)).not.toContain('scrypt$');
    // One derivation per export: two documents share the salt, never the nonce.
    const other = sealer.seal(secrets, 'Users');
    expect(other.salt).toBe(sealed.salt);
    expect(other.iv).not.toBe(sealed.iv);
    expect(await new SecretOpener('clinic export passphrase').open(sealed, 'Users')).toEqual(secrets);
  });

  it('refuses another passphrase, a changed ciphertext and a record moved to another collection with a 400', async () => {
    const sealed = (await SecretSealer.create('clinic export passphrase')).seal(secrets, 'Users');
    const refused = async (p: Promise<unknown>) => {
      const err = await p.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).status).toBe(400);
    };
    await refused(new SecretOpener('another passphrase!').open(sealed, 'Users'));
    const data = Buffer.from(sealed.data, 'base64');
    data[0] = (data[0] ?? 0) ^ 1;
    await refused(new SecretOpener('clinic export passphrase').open({ ...sealed, data: data.toString('base64') }, 'Users'));
    await refused(new SecretOpener('clinic export passphrase').open(sealed, 'Clients'));
  });

  it('does not try costs a crafted file could use to exhaust memory or time', () => {
    const base = { alg: 'scrypt-aes-256-gcm', N: 2 ** 15, r: 8, p: 1, salt: 'a', iv: 'b', tag: 'c', data: 'd' };
    expect(isEncryptedSecrets(base)).toBe(true);
    expect(isEncryptedSecrets({ ...base, N: 2 ** 24 })).toBe(false);
    expect(isEncryptedSecrets({ ...base, N: 3000 })).toBe(false);
    expect(isEncryptedSecrets({ ...base, r: 1000 })).toBe(false);
    expect(isEncryptedSecrets({ ...base, alg: 'none' })).toBe(false);
  });

  it('wants a passphrase of at least 10 characters', () => {
    expect(() => checkPassphrase(undefined, 'An export with secrets')).toThrow(/x-junction-passphrase/);
    expect(() => checkPassphrase('short', 'An export with secrets')).toThrow(/at least 10/);
    expect(checkPassphrase('long enough!', 'x')).toBe('long enough!');
  });
});
