/** Browser-side helpers for client credentials: random custom tokens and reading certificate files. */

/** Largest certificate text the API accepts (its schema's limit). */
export const MAX_CERTIFICATE_CHARS = 65536;
/** Shortest custom token the API accepts. */
export const MIN_TOKEN_LENGTH = 16;
/** Shortest basic-auth password the API accepts. */
export const MIN_PASSWORD_LENGTH = 8;

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** 32 random bytes from the browser's cryptographic generator, as URL-safe base64 (43 characters). */
export function generateToken(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return base64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The text of a certificate file. PEM files are used as they are; a binary (DER) certificate is wrapped as PEM so
 * the server can read it. The server checks that the result really is a certificate.
 */
export async function readCertificateFile(file: File): Promise<string> {
  if (file.size > MAX_CERTIFICATE_CHARS) throw new Error(`${file.name} is ${Math.ceil(file.size / 1024)} KB: too large for a certificate (at most 64 KB).`);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const text = new TextDecoder('utf-8').decode(bytes);
  if (text.includes('-----BEGIN')) return text.trim();
  const lines = base64(bytes).match(/.{1,64}/g) ?? [];
  return ['-----BEGIN CERTIFICATE-----', ...lines, '-----END CERTIFICATE-----'].join('\n');
}

/** True when pasted text carries a private key, which Junction does not need and does not keep. */
export function includesPrivateKey(pem: string): boolean {
  return /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem);
}
