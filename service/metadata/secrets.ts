/**
 * Encryption of exported secrets with a passphrase: scrypt derives a key, AES-256-GCM seals each document's secrets.
 * One salt (so one slow derivation) serves a whole export; each document has its own nonce. GCM's tag makes a wrong
 * passphrase, or a changed ciphertext, fail to open instead of yielding garbage.
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';
import { AppError } from '../errors.js';
import type { EncryptedSecrets } from '../contracts/metadata.js';

/** Shortest passphrase accepted: the export may hold every password hash and the server key. */
export const MIN_PASSPHRASE_LENGTH = 10;
const MAX_PASSPHRASE_LENGTH = 1024;

// scrypt's cost for new exports (about 100 ms and 32 MiB): one derivation per export or import, not per document.
const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
// Bounds on what an export may ask for, so a crafted file cannot make an import hang or exhaust memory.
const MAX_N = 2 ** 20;
const MAX_R = 16;
const MAX_P = 4;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
const IV_BYTES = 12;

function deriveKey(passphrase: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem must exceed 128 * N * r bytes or scrypt refuses.
    scrypt(passphrase, salt, KEY_BYTES, { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 }, (err, key) => (err === null ? resolve(key) : reject(err)));
  });
}

/** Refuses a missing, short or overlong passphrase with a 400 that says what is needed. */
export function checkPassphrase(passphrase: string | undefined, purpose: string): string {
  if (passphrase === undefined || passphrase === '') throw new AppError('BAD_REQUEST', `${purpose} needs a passphrase in the x-junction-passphrase header`);
  if (passphrase.length < MIN_PASSPHRASE_LENGTH) throw new AppError('BAD_REQUEST', `The passphrase must be at least ${MIN_PASSPHRASE_LENGTH} characters`);
  if (passphrase.length > MAX_PASSPHRASE_LENGTH) throw new AppError('BAD_REQUEST', `The passphrase must be at most ${MAX_PASSPHRASE_LENGTH} characters`);
  return passphrase;
}

/** Seals values for one export: the key is derived once, each value gets its own nonce. */
export class SecretSealer {
  readonly #key: Buffer;
  readonly #salt: Buffer;

  private constructor(key: Buffer, salt: Buffer) {
    this.#key = key;
    this.#salt = salt;
  }

  /** A sealer for a new export under this passphrase (a fresh random salt). */
  static async create(passphrase: string): Promise<SecretSealer> {
    const salt = randomBytes(SALT_BYTES);
    return new SecretSealer(await deriveKey(passphrase, salt, COST), salt);
  }

  /** The value as JSON, encrypted; `context` (the collection) is authenticated too, so a sealed value cannot be moved to another kind of record. */
  seal(value: unknown, context: string): EncryptedSecrets {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return { alg: 'scrypt-aes-256-gcm', ...COST, salt: this.#salt.toString('base64'), iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  }
}

/** True when the value has the shape of EncryptedSecrets (its cost within bounds), so opening it is worth trying. */
export function isEncryptedSecrets(value: unknown): value is EncryptedSecrets {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  const int = (x: unknown, max: number) => Number.isInteger(x) && (x as number) >= 1 && (x as number) <= max;
  return (
    v.alg === 'scrypt-aes-256-gcm' &&
    int(v.N, MAX_N) && ((v.N as number) & ((v.N as number) - 1)) === 0 && (v.N as number) > 1 &&
    int(v.r, MAX_R) && int(v.p, MAX_P) &&
    ['salt', 'iv', 'tag', 'data'].every((k) => typeof v[k] === 'string' && (v[k]).length <= 1_000_000)
  );
}

/** Opens sealed values of an import with one passphrase; keys are derived once per salt met. */
export class SecretOpener {
  readonly #passphrase: string;
  readonly #keys = new Map<string, Promise<Buffer>>();

  constructor(passphrase: string) {
    this.#passphrase = passphrase;
  }

  /** The value sealed for `context`; 400 when the passphrase is not the export's (or the text was changed). */
  async open(sealed: EncryptedSecrets, context: string): Promise<unknown> {
    const cacheKey = `${sealed.N}:${sealed.r}:${sealed.p}:${sealed.salt}`;
    let key = this.#keys.get(cacheKey);
    if (key === undefined) {
      key = deriveKey(this.#passphrase, Buffer.from(sealed.salt, 'base64'), { N: sealed.N, r: sealed.r, p: sealed.p });
      this.#keys.set(cacheKey, key);
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', await key, Buffer.from(sealed.iv, 'base64'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
      const text = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
      return JSON.parse(text) as unknown;
    } catch {
      throw new AppError('BAD_REQUEST', 'The passphrase does not open the secrets in this import: it is not the passphrase the export was made with, or the file was changed');
    }
  }
}
