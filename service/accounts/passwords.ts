/**
 * Password hashing with scrypt (node:crypto). Hashes are self-describing (`scrypt$logN$r$p$salt$hash`) so the
 * cost can be raised later without invalidating stored passwords.
 */
import { createHash, randomBytes, randomUUID, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import type { ScryptOptions } from 'node:crypto';
import type { LegacyTokenCredential } from '../storage/records.js';

const LOG_N = 15; // N = 32768: about 32 MiB and tens of milliseconds per hash on a clinic PC
const R = 8;
const P = 1;
const KEY_LENGTH = 64;
const SALT_BYTES = 16;

function scrypt(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r };
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => {
      if (err) reject(err);
      else resolve(key);
    });
  });
}

/** Hashes a password for storage. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, LOG_N, R, P);
  return ['scrypt', LOG_N, R, P, salt.toString('base64'), key.toString('base64')].join('$');
}

interface ParsedHash {
  logN: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

function parseHash(stored: string | null | undefined): ParsedHash | null {
  const parts = stored?.split('$') ?? [];
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [logN, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  // Bounds keep a tampered record from making verification hang or exhaust memory.
  if (![logN, r, p].every(Number.isInteger) || logN < 10 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 16) return null;
  return { logN, r, p, salt: Buffer.from(parts[4] ?? '', 'base64'), hash: Buffer.from(parts[5] ?? '', 'base64') };
}

/** True for a stored hash in the format hashPassword writes (an imported hash is checked with this before it is kept). */
export function isPasswordHash(text: string): boolean {
  return parseHash(text) !== null;
}

// Verifying against this when the account does not exist keeps the answer time the same, so timing does not reveal
// which email addresses have accounts.
const DUMMY: ParsedHash = { logN: LOG_N, r: R, p: P, salt: Buffer.alloc(SALT_BYTES), hash: Buffer.alloc(KEY_LENGTH) };

/** Checks a password against a stored hash; a null or malformed hash never matches (but costs the same time). */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parsed = parseHash(stored);
  const target = parsed ?? DUMMY;
  const actual = await scrypt(password, target.salt, target.logN, target.r, target.p);
  return parsed !== null && actual.length === target.hash.length && timingSafeEqual(actual, target.hash);
}

function sha512Hex(text: string): string {
  return createHash('sha512').update(text).digest('hex');
}

/** The credential the deprecated OpenHIM token scheme needs: sha512(salt + password) with a random salt. */
export function legacyTokenCredential(password: string): LegacyTokenCredential {
  const salt = randomUUID();
  return { salt, hash: sha512Hex(salt + password) };
}

/** The token a client must send: sha512(passwordhash + auth-salt + auth-ts), compared in constant time. */
export function legacyTokenMatches(credential: LegacyTokenCredential, authSalt: string, authTs: string, token: string): boolean {
  const expected = Buffer.from(sha512Hex(credential.hash + authSalt + authTs), 'utf8');
  const actual = Buffer.from(token.toLowerCase(), 'utf8');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
