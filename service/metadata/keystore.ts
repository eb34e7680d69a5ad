/**
 * The keystore in an export (`KeystoreModelAPI`, OpenHIM's name): the server certificate and the uploaded trusted
 * CAs, public parts only. The private key travels only sealed with the passphrase, when secrets are asked for, and is
 * then written unencrypted into the sealed part (so the import needs no second passphrase). An import adds the CAs
 * (those already trusted are skipped) and, with the key, applies the pair at once, without a restart.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { AppError } from '../errors.js';
import type { Keystore } from '../keystore/keystore.js';
import { pairProblem } from '../keystore/keystore.js';
import type { KeystoreMetadata } from './services.js';

type Doc = Record<string, unknown>;

/** The certificate info of an export: what it says about itself, without the keystore's own bookkeeping. */
const BOOKKEEPING = ['_id', 'source', 'watchFSForCert', 'pending'];
function publicInfo(info: object): Doc {
  return Object.fromEntries(Object.entries(info).filter(([k]) => !BOOKKEEPING.includes(k)));
}

function pemOf(value: unknown, at: string): string {
  const data = typeof value === 'object' && value !== null ? (value as Doc).data : undefined;
  if (typeof data !== 'string') throw new AppError('VALIDATION_FAILED', `${at}.data must be a PEM certificate`);
  try {
    return new X509Certificate(data).toString();
  } catch {
    throw new AppError('VALIDATION_FAILED', `${at}.data is not a certificate that can be read`);
  }
}

/** The private key among opened secrets, if any. */
function keyOf(secrets: unknown): string | undefined {
  if (!Array.isArray(secrets)) return undefined;
  const entry = (secrets as { path?: unknown; value?: unknown }[]).find((e) => Array.isArray(e.path) && e.path.length === 1 && e.path[0] === 'key');
  return typeof entry?.value === 'string' ? entry.value : undefined;
}

/** The keystore as export and import see it. */
export function keystoreMetadata(keystore: Keystore): KeystoreMetadata {
  return {
    async exportPublic(seal) {
      const doc: Doc = {
        cert: publicInfo(keystore.serverInfo()),
        // CAs from tls.trustedCAFiles belong to that instance's settings, not to its keystore.
        ca: keystore.listCAs().filter((c) => c.source === 'uploaded').map(publicInfo),
      };
      if (seal === undefined) return doc;
      const { key, passphrase } = keystore.certificate();
      const plain = createPrivateKey(passphrase === undefined ? key : { key, passphrase }).export({ type: 'pkcs8', format: 'pem' }).toString();
      return { ...doc, encryptedSecrets: seal([{ path: ['key'], value: plain }]) };
    },

    async importDoc(doc, secrets, dryRun) {
      const cas = Array.isArray(doc.ca) ? doc.ca.map((c, i) => pemOf(c, `ca.${i}`)) : [];
      const key = keyOf(secrets);
      const cert = key === undefined ? undefined : pemOf(doc.cert, 'cert');
      if (cert !== undefined && key !== undefined) {
        const problem = pairProblem({ cert, key });
        if (problem !== undefined) throw new AppError('VALIDATION_FAILED', `The server certificate cannot be imported: ${problem}`);
      }
      // The keystore always exists, so (as in OpenHIM) validating it is a conflict and importing it an update.
      if (dryRun) return 'Conflict';
      if (cas.length > 0) await keystore.addCAs(cas.join('\n'));
      if (cert !== undefined && key !== undefined) await keystore.applyPair(cert, key);
      return 'Updated';
    },
  };
}
