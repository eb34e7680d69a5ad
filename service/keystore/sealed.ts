/**
 * Secrets at rest: AES-256-GCM with a 256-bit secret kept in its own file (`keystore.secretFile`), apart from the
 * keystore folder it protects, so a copy of the keystore folder alone never yields the private key.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { TextSealer } from '../storage/sealed-route-passwords.js';

/** A value encrypted with the keystore secret; every part base64. */
export interface Sealed {
  iv: string;
  tag: string;
  data: string;
}

const SECRET_BYTES = 32;

/** Writes a file through a temporary name, flushed then renamed, so a reader never sees half of it. */
export async function writeFileAtomic(file: string, content: string | Buffer, mode: number): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'w', mode);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}

/** Reads the secret file, creating it (0600, random) when it does not exist yet and `create` allows it. */
export async function loadSecret(file: string, create: boolean): Promise<Buffer> {
  try {
    const text = (await readFile(file, 'utf8')).trim();
    const secret = Buffer.from(text, 'hex');
    if (secret.length !== SECRET_BYTES) throw new Error(`${file} does not hold a ${SECRET_BYTES * 2}-digit hexadecimal keystore secret`);
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    if (!create) throw new Error(`The keystore secret file ${file} is missing: the stored private key cannot be read without it (restore it; an instance sharing a database with others needs a copy of theirs; or move the keystore away to start with a new certificate)`, { cause: err });
  }
  const secret = randomBytes(SECRET_BYTES);
  await writeFileAtomic(file, `${secret.toString('hex')}\n`, 0o600);
  return secret;
}

/** Encrypts a text with the secret; a fresh IV each time. */
export function seal(secret: Buffer, text: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secret, iv);
  const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

/** Decrypts a sealed text; throws when the secret is not the one it was sealed with or the data was altered. */
export function unseal(secret: Buffer, sealed: Sealed): string {
  const decipher = createDecipheriv('aes-256-gcm', secret, Buffer.from(sealed.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
}

/** How a sealed short text starts; base64 holds no `:`, so the parts split cleanly. */
const TEXT_PREFIX = 'junction-sealed:v1:';
const SEALED_TEXT = /^junction-sealed:v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]*$/;

/**
 * Short secrets kept inside records (route passwords) as one self-describing string, sealed with the keystore secret,
 * so a record keeps its shape and a reader can tell a sealed value from one an earlier version stored in clear.
 */
export function textSealer(secret: Buffer): TextSealer {
  return {
    seal: (text) => {
      const sealed = seal(secret, text);
      return `${TEXT_PREFIX}${sealed.iv}:${sealed.tag}:${sealed.data}`;
    },
    open: (text) => {
      const [iv = '', tag = '', data = ''] = text.slice(TEXT_PREFIX.length).split(':');
      try {
        return unseal(secret, { iv, tag, data });
      } catch (err) {
        throw new Error('A sealed route password cannot be opened with this keystore secret: restore the keystore secret file it was sealed with (keystore.secretFile), or enter the password again', { cause: err });
      }
    },
    isSealed: (text) => SEALED_TEXT.test(text),
  };
}
