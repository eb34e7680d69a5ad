/**
 * The server certificate used by the management API (and later the HTTPS transaction port): the configured
 * certificate and key when given, else a self-signed pair generated at first start and kept in the data folder.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { generateSelfSigned } from './self-signed.js';

export interface ServerCertificate {
  cert: string;
  key: string;
  passphrase?: string;
  source: 'configured' | 'generated';
  fingerprint256: string;
  validTo: Date;
}

export interface CertificateOptions {
  dataDir: string;
  certFile: string;
  keyFile: string;
  keyPassphrase?: string;
  logger: Logger;
}

/** A start-up problem with the certificate files; the message names the file and what to do. */
export class CertificateError extends Error {
  override readonly name = 'CertificateError';
}

async function readPem(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new CertificateError(`Cannot read the ${what} file ${file}: ${(err as Error).message}`, { cause: err });
  }
}

/** Parses and cross-checks a certificate and key; throws CertificateError naming the files on any mismatch. */
export function checkPair(cert: string, key: string, passphrase: string | undefined, files: { cert: string; key: string }) {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (err) {
    throw new CertificateError(`${files.cert} is not a PEM certificate: ${(err as Error).message}`, { cause: err });
  }
  let privateKey;
  try {
    privateKey = createPrivateKey({ key, passphrase });
  } catch (err) {
    const hint = passphrase === undefined ? ' (if the key is encrypted, set tls.keyPassphrase)' : '';
    throw new CertificateError(`${files.key} is not a usable private key${hint}: ${(err as Error).message}`, { cause: err });
  }
  if (!x509.checkPrivateKey(privateKey)) {
    throw new CertificateError(`The key in ${files.key} does not belong to the certificate in ${files.cert}`);
  }
  return x509;
}

function describe(x509: X509Certificate, source: ServerCertificate['source'], cert: string, key: string, passphrase?: string): ServerCertificate {
  return { cert, key, passphrase, source, fingerprint256: x509.fingerprint256, validTo: new Date(x509.validTo) };
}

/** Loads the configured pair, or the generated one from the data folder, generating it on first start or expiry. */
export async function loadServerCertificate(options: CertificateOptions): Promise<ServerCertificate> {
  const { logger } = options;
  if (options.certFile !== '') {
    const [cert, key] = await Promise.all([readPem(options.certFile, 'certificate'), readPem(options.keyFile, 'key')]);
    const x509 = checkPair(cert, key, options.keyPassphrase, { cert: options.certFile, key: options.keyFile });
    if (new Date(x509.validTo).getTime() < Date.now()) {
      logger.warn({ file: options.certFile, validTo: x509.validTo }, 'the configured server certificate has expired');
    }
    return describe(x509, 'configured', cert, key, options.keyPassphrase);
  }

  const dir = join(options.dataDir, 'tls');
  const files = { cert: join(dir, 'server-cert.pem'), key: join(dir, 'server-key.pem') };
  let existing: { cert: string; key: string } | undefined;
  try {
    existing = { cert: await readFile(files.cert, 'utf8'), key: await readFile(files.key, 'utf8') };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new CertificateError(`Cannot read the generated certificate in ${dir}: ${(err as Error).message}`, { cause: err });
    }
  }
  if (existing !== undefined) {
    const x509 = checkPair(existing.cert, existing.key, undefined, files);
    if (new Date(x509.validTo).getTime() > Date.now() + 24 * 60 * 60 * 1000) {
      return describe(x509, 'generated', existing.cert, existing.key);
    }
    logger.warn({ file: files.cert, validTo: x509.validTo }, 'the generated server certificate is expiring; generating a new one');
  }

  const pair = generateSelfSigned();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Write to temporary names and rename, so a crash never leaves a certificate without its key.
  await writeFile(`${files.key}.tmp`, pair.key, { mode: 0o600 });
  await writeFile(`${files.cert}.tmp`, pair.cert, { mode: 0o644 });
  await rename(`${files.key}.tmp`, files.key);
  await rename(`${files.cert}.tmp`, files.cert);
  const x509 = checkPair(pair.cert, pair.key, undefined, files);
  logger.info({ file: files.cert, fingerprint256: x509.fingerprint256 }, 'generated a self-signed server certificate');
  return describe(x509, 'generated', pair.cert, pair.key);
}

/** Reads the trusted CA files; each must hold at least one PEM certificate, else start-up stops naming the file. */
export async function loadTrustedCAs(files: readonly string[]): Promise<string[]> {
  const cas: string[] = [];
  for (const file of files) {
    const text = await readPem(file, 'trusted CA');
    const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    if (blocks.length === 0) throw new CertificateError(`${file} (tls.trustedCAFiles) holds no PEM certificate`);
    for (const block of blocks) {
      try {
        new X509Certificate(block);
      } catch (err) {
        throw new CertificateError(`${file} (tls.trustedCAFiles) holds a certificate that does not parse: ${(err as Error).message}`, { cause: err });
      }
      cas.push(block);
    }
  }
  return cas;
}
