/**
 * The keystore: the server certificate, its key and passphrase, and the trusted CAs. It keeps them in one document
 * (key and passphrase sealed, see sealed.ts): `<dataDir>/keystore/keystore.json`, or a row several instances share
 * (storage/keystore-document.ts), and tells every TLS user when they change, so a new pair or CA is served without a
 * restart. A change made through another instance arrives by `reload()`. An upload that does not complete a matching
 * pair is staged and changes nothing that is serving; when `tls.certFile` is set, those files are the source instead.
 */
import { X509Certificate, createHash, createPrivateKey } from 'node:crypto';
import { readFile, rm, unwatchFile, watchFile } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import type { CaUploadAnswer, KeystoreUploadAnswer, KeystoreValidity, ServerCertificateInfo, TrustedCaInfo } from '../contracts/keystore.js';
import type { KeystoreDocumentStore } from '../storage/keystore-document.js';
import type { TextSealer } from '../storage/sealed-route-passwords.js';
import { newObjectId } from '../storage/object-ids.js';
import type { GeneratedPair } from '../tls/self-signed.js';
import { loadServerCertificate, loadTrustedCAs } from '../tls/server-certificate.js';
import type { ServerCertificate } from '../tls/server-certificate.js';
import { certificateInfo, parseCertificate, pemBlocks } from './certificate-info.js';
import { FileKeystoreDocument } from './file-document.js';
import { loadSecret, seal, textSealer, unseal, writeFileAtomic } from './sealed.js';
import type { Sealed } from './sealed.js';

const read = promisify(readFile);
const remove = promisify(rm);

const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';
const DAY_MS = 24 * 60 * 60 * 1000;

export interface KeystoreOptions {
  dataDir: string;
  /** The secret's file; empty means `<dataDir>/keystore.secret`. */
  secretFile: string;
  tls: { certFile: string; keyFile: string; keyPassphrase?: string; trustedCAFiles: readonly string[] };
  logger: Logger;
  now?: () => Date;
  /** How a self-signed pair is made (tests may pass a cheaper one). */
  generate?: () => GeneratedPair;
  /** How often the configured files are checked for a change, in ms; 0 does not watch. */
  watchIntervalMs?: number;
  /** Where the document is kept; `<dataDir>/keystore/keystore.json` unless an engine shared by instances is given. */
  documents?: KeystoreDocumentStore;
}

/** What changed; every TLS user applies `certificate` and `trustedCAs` to new connections. */
export interface KeystoreChange {
  certificate: ServerCertificate;
  trustedCAs: readonly string[];
  certificateChanged: boolean;
}

/** The secret halves as sealed together: the key and its passphrase. */
interface Secrets {
  key?: string;
  /** null: explicitly no passphrase (only in a staged half). */
  passphrase?: string | null;
}

interface StoredCa {
  _id: string;
  data: string;
  addedAt: string;
}

interface StoredKeystore {
  version: 1;
  origin?: 'generated' | 'uploaded';
  cert?: string;
  secrets?: Sealed;
  pending?: { cert?: string; secrets?: Sealed };
  ca: StoredCa[];
}

interface Pair {
  cert: string;
  key: string;
  passphrase?: string;
}

/** The keystore files' paths (the backup copies the folder and the secret file). */
export function keystorePaths(dataDir: string, secretFile: string): { folder: string; file: string; secret: string } {
  const folder = join(dataDir, 'keystore');
  return { folder, file: join(folder, 'keystore.json'), secret: secretFile === '' ? join(dataDir, 'keystore.secret') : secretFile };
}

function badRequest(message: string): AppError {
  return new AppError('BAD_REQUEST', message);
}

/** Why a certificate and key do not make a usable pair, or undefined when they do. */
export function pairProblem(pair: { cert?: string; key?: string; passphrase?: string }): string | undefined {
  if (pair.cert === undefined) return 'no certificate has been uploaded';
  if (pair.key === undefined) return 'no private key has been uploaded';
  let x509: X509Certificate;
  try {
    x509 = parseCertificate(pair.cert);
  } catch (err) {
    return `the certificate cannot be read: ${(err as Error).message}`;
  }
  let key;
  try {
    key = createPrivateKey({ key: pair.key, ...(pair.passphrase === undefined ? {} : { passphrase: pair.passphrase }) });
  } catch {
    // The library's message may quote parts of the key, so it is not passed on.
    return pair.passphrase === undefined
      ? 'the private key cannot be read: if it is encrypted, upload its passphrase'
      : 'the private key cannot be read with the passphrase given';
  }
  if (!x509.checkPrivateKey(key)) return 'the private key does not belong to the certificate';
  return undefined;
}

function isConflict(err: unknown): boolean {
  return err instanceof AppError && err.code === 'CONFLICT';
}

function caId(pem: string): string {
  return createHash('sha256').update(pem).digest('hex').slice(0, 24);
}

/** The server certificate and trusted CAs, persisted and announced on change. */
export class Keystore {
  readonly #options: KeystoreOptions;
  readonly #paths: ReturnType<typeof keystorePaths>;
  readonly #now: () => Date;
  readonly #documents: KeystoreDocumentStore;
  /** The version of the document `#stored` was read from or written as; null before the first write. */
  #version: string | null = null;
  readonly #listeners = new Set<(change: KeystoreChange) => void>();
  #secret: Buffer = Buffer.alloc(0);
  #stored: StoredKeystore = { version: 1, ca: [] };
  #certificate!: ServerCertificate;
  #configuredCAs: { _id: string; data: string }[] = [];
  /** Mutations run one at a time, so two uploads never interleave their writes. */
  #queue: Promise<unknown> = Promise.resolve();
  #watching = false;

  private constructor(options: KeystoreOptions) {
    this.#options = options;
    this.#paths = keystorePaths(options.dataDir, options.secretFile);
    this.#now = options.now ?? (() => new Date());
    this.#documents = options.documents ?? new FileKeystoreDocument(this.#paths.file);
  }

  /** Opens (or creates) the keystore; rejects naming the file and what to do when it cannot be read. */
  static async open(options: KeystoreOptions): Promise<Keystore> {
    let keystore = new Keystore(options);
    try {
      await keystore.#load();
    } catch (err) {
      // Another instance created (or renewed) the shared document while this one did: what it wrote is used.
      if (!isConflict(err)) throw err;
      keystore = new Keystore(options);
      await keystore.#load();
    }
    await keystore.#publish();
    return keystore;
  }

  /**
   * Takes up a change another instance made to the shared document (the cluster's change bus calls this): when its
   * version differs from the one held, reads it, announces it to every TLS user and resolves true.
   */
  async reload(): Promise<boolean> {
    return this.#serial(() => this.#refresh());
  }

  /** Seals short secrets kept in records (route passwords) with the keystore secret; the same secret opens them on every instance. */
  textSealer(): TextSealer {
    return textSealer(this.#secret);
  }

  /** Where the keystore lives on disk. */
  get paths(): { folder: string; file: string; secret: string } {
    return { ...this.#paths };
  }

  /** True when tls.certFile is the source (OpenHIM's watchFSForCert): uploads are refused. */
  get configured(): boolean {
    return this.#options.tls.certFile !== '';
  }

  /** The pair being served. */
  certificate(): ServerCertificate {
    return this.#certificate;
  }

  /** Every trusted CA PEM: tls.trustedCAFiles' and the uploaded ones. */
  trustedCAs(): readonly string[] {
    return [...this.#configuredCAs.map((c) => c.data), ...this.#stored.ca.map((c) => c.data)];
  }

  /** Calls the listener after every change; returns the function that stops it. */
  onChange(listener: (change: KeystoreChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Stops watching the configured files. */
  close(): void {
    if (this.#watching) {
      unwatchFile(this.#options.tls.certFile);
      unwatchFile(this.#options.tls.keyFile);
      this.#watching = false;
    }
    this.#listeners.clear();
  }

  /** `GET /keystore/cert`. */
  serverInfo(): ServerCertificateInfo {
    const pending = this.#stored.pending;
    return {
      ...certificateInfo(parseCertificate(this.#certificate.cert)),
      watchFSForCert: this.configured,
      source: this.#certificate.source,
      pending: pending !== undefined && (pending.cert !== undefined || pending.secrets !== undefined),
    };
  }

  /** `GET /keystore/ca`. */
  listCAs(): TrustedCaInfo[] {
    return [
      ...this.#configuredCAs.map((c) => ({ ...certificateInfo(parseCertificate(c.data)), _id: c._id, source: 'configured' as const })),
      ...this.#stored.ca.map((c) => ({ ...certificateInfo(parseCertificate(c.data)), _id: c._id, source: 'uploaded' as const })),
    ];
  }

  /** `GET /keystore/ca/:certId`; 404 when unknown. */
  getCA(id: string): TrustedCaInfo {
    const found = this.listCAs().find((c) => c._id === id);
    if (found === undefined) throw new AppError('NOT_FOUND', `No trusted certificate has the id ${id}`);
    return found;
  }

  /** `POST /keystore/ca/cert`: every certificate of the chain, or none; ones already trusted are skipped. */
  async addCAs(text: string): Promise<CaUploadAnswer> {
    return this.#serial(async () => {
      await this.#refresh();
      const blocks = pemBlocks(text);
      if (blocks.length === 0) throw badRequest('Failed to add the certificate: no "-----BEGIN CERTIFICATE-----" PEM block found');
      const parsed = blocks.map((pem, i) => {
        try {
          return new X509Certificate(pem);
        } catch (err) {
          throw badRequest(`Failed to add the certificates: certificate ${i + 1} of ${blocks.length} does not parse (${(err as Error).message}); nothing was added`);
        }
      });
      const known = new Set(this.listCAs().map((c) => c.fingerprint256));
      const added: StoredCa[] = [];
      const skipped: CaUploadAnswer['skipped'] = [];
      for (const x509 of parsed) {
        const info = certificateInfo(x509);
        if (known.has(x509.fingerprint256)) {
          skipped.push({ fingerprint256: x509.fingerprint256, commonName: info.commonName });
          continue;
        }
        known.add(x509.fingerprint256);
        added.push({ _id: newObjectId(this.#now()), data: x509.toString(), addedAt: this.#now().toISOString() });
      }
      if (added.length > 0) {
        await this.#save({ ...this.#stored, ca: [...this.#stored.ca, ...added] });
        this.#announce(false);
      }
      const ids = new Set(added.map((a) => a._id));
      return { added: this.listCAs().filter((c) => ids.has(c._id)), skipped };
    });
  }

  /** Trusts a certificate (a generated client certificate's own); no change when it already is. */
  async trust(pem: string): Promise<void> {
    await this.addCAs(pem);
  }

  /** `DELETE /keystore/ca/:certId`: 404 when unknown, 400 for one that tls.trustedCAFiles names. */
  async removeCA(id: string): Promise<TrustedCaInfo> {
    return this.#serial(async () => {
      await this.#refresh();
      const found = this.getCA(id);
      if (found.source === 'configured') throw badRequest(`The certificate ${found.commonName} comes from tls.trustedCAFiles; remove it from that setting instead`);
      await this.#save({ ...this.#stored, ca: this.#stored.ca.filter((c) => c._id !== id) });
      this.#announce(false);
      return found;
    });
  }

  /** `POST /keystore/cert`: stages the certificate (and a passphrase, when given); applies once the pair matches. */
  async uploadCert(cert: string, passphrase?: string): Promise<KeystoreUploadAnswer> {
    this.#refuseWhenConfigured('certificate');
    try {
      parseCertificate(cert);
    } catch (err) {
      throw badRequest(`Could not add server cert via the API: ${(err as Error).message}`);
    }
    // A chain (the certificate then its intermediates) is served whole.
    const chain = pemBlocks(cert).join('\n') + '\n';
    return this.#stage({ cert: chain, ...(passphrase === undefined ? {} : { passphrase }) });
  }

  /** `POST /keystore/key`: stages the key (and a passphrase, when given); applies once the pair matches. */
  async uploadKey(key: string, passphrase?: string): Promise<KeystoreUploadAnswer> {
    this.#refuseWhenConfigured('key');
    if (!/-----BEGIN (RSA |EC |ENCRYPTED )?PRIVATE KEY-----[\s\S]+-----END (RSA |EC |ENCRYPTED )?PRIVATE KEY-----/.test(key)) {
      throw badRequest('Could not add the key: send a PEM private key ("-----BEGIN PRIVATE KEY-----", RSA, EC or ENCRYPTED)');
    }
    return this.#stage({ key, ...(passphrase === undefined ? {} : { passphrase }) });
  }

  /** `POST /keystore/passphrase`: stages the passphrase ('' for none); applies once the pair matches. */
  async uploadPassphrase(passphrase: string): Promise<KeystoreUploadAnswer> {
    this.#refuseWhenConfigured('passphrase');
    return this.#stage({ passphrase });
  }

  /** Makes a generated pair the server certificate at once (`POST /certificates` with applyToServer). */
  async applyPair(cert: string, key: string): Promise<void> {
    this.#refuseWhenConfigured('certificate');
    await this.#serial(async () => {
      await this.#refresh();
      const problem = pairProblem({ cert, key });
      if (problem !== undefined) throw badRequest(problem);
      await this.#save({ ...this.#stored, origin: 'uploaded', cert, secrets: seal(this.#secret, JSON.stringify({ key })), pending: undefined });
      this.#certificate = this.#describe({ cert, key }, 'uploaded');
      await this.#publish();
      this.#announce(true);
    });
  }

  /** `GET /keystore/validity`: whether the pair that would be served (staged halves over the active ones) matches. */
  validity(): KeystoreValidity {
    const pending = this.#stored.pending;
    const isPending = pending !== undefined && (pending.cert !== undefined || pending.secrets !== undefined);
    const problem = pairProblem(this.#candidate());
    return { valid: problem === undefined, pending: isPending, ...(problem === undefined ? {} : { reason: problem }) };
  }

  /** Reloads tls.certFile and keyFile; a pair that does not load is logged and the served one kept. */
  async reloadConfigured(): Promise<boolean> {
    if (!this.configured) return false;
    return this.#serial(async () => {
      const { tls, dataDir, logger } = this.#options;
      try {
        const loaded = await loadServerCertificate({ dataDir, certFile: tls.certFile, keyFile: tls.keyFile, ...(tls.keyPassphrase === undefined ? {} : { keyPassphrase: tls.keyPassphrase }), logger });
        if (loaded.fingerprint256 === this.#certificate.fingerprint256) return false;
        this.#certificate = loaded;
        logger.info({ file: tls.certFile, fingerprint256: loaded.fingerprint256 }, 'the configured server certificate changed; serving the new one');
        await this.#publish();
        this.#announce(true);
        return true;
      } catch (err) {
        logger.warn({ file: tls.certFile, reason: (err as Error).message }, 'the configured certificate files changed but do not load as a pair; still serving the previous certificate');
        return false;
      }
    });
  }

  #refuseWhenConfigured(what: string): void {
    if (this.configured) {
      throw badRequest(`Uploading of the ${what} is not allowed while tls.certFile is set (OpenHIM's watchFSForCert): replace the files ${this.#options.tls.certFile} and ${this.#options.tls.keyFile} instead`);
    }
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work, work);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  #secrets(sealed: Sealed | undefined): Secrets {
    return sealed === undefined ? {} : (JSON.parse(unseal(this.#secret, sealed)) as Secrets);
  }

  /** The pair that would be served: staged halves over the active ones. */
  #candidate(): { cert?: string; key?: string; passphrase?: string } {
    const active = this.#secrets(this.#stored.secrets);
    const staged = this.#secrets(this.#stored.pending?.secrets);
    const passphrase = 'passphrase' in staged ? staged.passphrase : active.passphrase;
    const cert = this.#stored.pending?.cert ?? this.#stored.cert ?? (this.configured ? this.#certificate.cert : undefined);
    const key = staged.key ?? active.key;
    return { ...(cert === undefined ? {} : { cert }), ...(key === undefined ? {} : { key }), ...(passphrase === undefined || passphrase === null ? {} : { passphrase }) };
  }

  async #stage(half: { cert?: string; key?: string; passphrase?: string }): Promise<KeystoreUploadAnswer> {
    return this.#serial(async () => {
      // Staged halves may have come through another instance: the pair is completed against the stored document.
      await this.#refresh();
      const staged = this.#secrets(this.#stored.pending?.secrets);
      if (half.key !== undefined) staged.key = half.key;
      if (half.passphrase !== undefined) staged.passphrase = half.passphrase === '' ? null : half.passphrase;
      const pending = {
        ...(half.cert !== undefined ? { cert: half.cert } : this.#stored.pending?.cert !== undefined ? { cert: this.#stored.pending.cert } : {}),
        ...(Object.keys(staged).length > 0 ? { secrets: seal(this.#secret, JSON.stringify(staged)) } : {}),
      };
      const next: StoredKeystore = { ...this.#stored, pending };
      const previous = this.#stored;
      this.#stored = next;
      const candidate = this.#candidate();
      const problem = pairProblem(candidate);
      if (problem !== undefined) {
        this.#stored = previous;
        await this.#save(next);
        this.#options.logger.info({ reason: problem }, 'keystore upload staged; the served certificate is unchanged until a matching pair is complete');
        return { applied: false, warning: `Staged, not applied: ${problem}. The certificate being served is unchanged.` };
      }
      const pair = candidate as Pair;
      const secrets: Secrets = { key: pair.key, ...(pair.passphrase === undefined ? {} : { passphrase: pair.passphrase }) };
      this.#stored = previous;
      await this.#save({ ...this.#stored, origin: 'uploaded', cert: pair.cert, secrets: seal(this.#secret, JSON.stringify(secrets)), pending: undefined });
      this.#certificate = this.#describe(pair, 'uploaded');
      this.#options.logger.info({ fingerprint256: this.#certificate.fingerprint256 }, 'a new server certificate was uploaded; serving it on every TLS listener');
      await this.#publish();
      this.#announce(true);
      return { applied: true };
    });
  }

  #describe(pair: Pair, source: ServerCertificate['source']): ServerCertificate {
    const x509 = parseCertificate(pair.cert);
    return { cert: pair.cert, key: pair.key, ...(pair.passphrase === undefined ? {} : { passphrase: pair.passphrase }), source, fingerprint256: x509.fingerprint256, validTo: new Date(x509.validTo) };
  }

  async #save(next: StoredKeystore): Promise<void> {
    const version = await this.#documents.write(`${JSON.stringify(next, null, 2)}\n`, this.#version);
    if (version === null) {
      throw new AppError('CONFLICT', 'The keystore was changed through another Junction instance at the same moment; nothing was changed here, try again');
    }
    this.#version = version;
    this.#stored = next;
  }

  /** Reads the stored document when its version is not the one held, and applies it; true when it did. */
  async #refresh(): Promise<boolean> {
    if ((await this.#documents.version()) === this.#version) return false;
    const document = await this.#documents.read();
    if (document === null) return false;
    const stored = this.#parse(document.text);
    const previous = this.#certificate.fingerprint256;
    this.#stored = stored;
    this.#version = document.version;
    if (!this.configured && stored.cert !== undefined && stored.secrets !== undefined) {
      const secrets = this.#secrets(stored.secrets);
      const pair: Pair = { cert: stored.cert, key: secrets.key ?? '', ...(typeof secrets.passphrase === 'string' ? { passphrase: secrets.passphrase } : {}) };
      const problem = pairProblem(pair);
      if (problem === undefined) this.#certificate = this.#describe(pair, stored.origin ?? 'generated');
      else this.#options.logger.error({ reason: problem, where: this.#documents.where }, 'the keystore changed elsewhere holds an unusable server certificate; still serving the previous one');
    }
    const certificateChanged = this.#certificate.fingerprint256 !== previous;
    if (certificateChanged) await this.#publish();
    this.#options.logger.info({ fingerprint256: this.#certificate.fingerprint256, certificateChanged }, 'the keystore was changed through another instance; applying it');
    this.#announce(certificateChanged);
    return true;
  }

  /** The stored document, checked to unseal with this machine's secret; throws saying what to fix. */
  #parse(text: string): StoredKeystore {
    try {
      const stored = JSON.parse(text) as StoredKeystore;
      this.#secrets(stored.secrets);
      return stored;
    } catch (err) {
      throw new Error(`The keystore ${this.#documents.where} cannot be read with the secret in ${this.#paths.secret} (${(err as Error).message}): restore the matching secret file (every instance sharing a database needs a copy of the same one), or move the keystore away to start with a new certificate`, { cause: err });
    }
  }

  /** A public copy of the served certificate (`server-cert.pem`), for whoever must trust or pin it (Prometheus, a browser). */
  async #publish(): Promise<void> {
    await writeFileAtomic(join(this.#paths.folder, 'server-cert.pem'), this.#certificate.cert, 0o644);
  }

  #announce(certificateChanged: boolean): void {
    const change: KeystoreChange = { certificate: this.#certificate, trustedCAs: this.trustedCAs(), certificateChanged };
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (err) {
        this.#options.logger.error({ err }, 'a TLS user failed to apply the keystore change');
      }
    }
  }

  async #load(): Promise<void> {
    const { tls, logger } = this.#options;
    const document = await this.#documents.read();
    const text = document?.text;
    this.#secret = await loadSecret(this.#paths.secret, text === undefined);
    if (document !== null) {
      this.#stored = this.#parse(document.text);
      this.#version = document.version;
    }
    this.#configuredCAs = (await loadTrustedCAs(tls.trustedCAFiles)).map((data) => ({ _id: caId(data), data }));

    if (this.configured) {
      this.#certificate = await loadServerCertificate({ dataDir: this.#options.dataDir, certFile: tls.certFile, keyFile: tls.keyFile, ...(tls.keyPassphrase === undefined ? {} : { keyPassphrase: tls.keyPassphrase }), logger });
      if (text === undefined) await this.#save(this.#stored);
      this.#watch();
      return;
    }
    if (this.#stored.cert !== undefined && this.#stored.secrets !== undefined) {
      const secrets = this.#secrets(this.#stored.secrets);
      const pair: Pair = { cert: this.#stored.cert, key: secrets.key ?? '', ...(typeof secrets.passphrase === 'string' ? { passphrase: secrets.passphrase } : {}) };
      const origin = this.#stored.origin ?? 'generated';
      if (origin === 'generated' && this.#needsRegeneration(pair.cert)) {
        await this.#generate();
        return;
      }
      const problem = pairProblem(pair);
      if (problem !== undefined) throw new Error(`The keystore ${this.#documents.where} holds an unusable server certificate: ${problem}`);
      this.#certificate = this.#describe(pair, origin);
      if (origin === 'uploaded' && new Date(parseCertificate(pair.cert).validTo).getTime() < this.#now().getTime()) {
        logger.warn({ validTo: this.#certificate.validTo }, 'the uploaded server certificate has expired; upload a new one (Certificates page)');
      }
      return;
    }
    if (await this.#importLegacy()) return;
    await this.#generate();
  }

  /** A generated certificate is replaced when it expires within a day or lacks clientAuth (made by older versions). */
  #needsRegeneration(cert: string): boolean {
    const x509 = parseCertificate(cert);
    const expiring = new Date(x509.validTo).getTime() <= this.#now().getTime() + DAY_MS;
    const clientAuth = (x509.keyUsage ?? []).includes(CLIENT_AUTH_OID);
    if (expiring) this.#options.logger.warn({ validTo: x509.validTo }, 'the generated server certificate is expiring; generating a new one');
    else if (!clientAuth) this.#options.logger.warn('the generated server certificate does not allow clientAuth (made by an older version); generating a new one');
    return expiring || !clientAuth;
  }

  /** Moves the pair an earlier version generated into `<dataDir>/tls/` into the keystore, so its pin stays valid. */
  async #importLegacy(): Promise<boolean> {
    const dir = join(this.#options.dataDir, 'tls');
    const files = { cert: join(dir, 'server-cert.pem'), key: join(dir, 'server-key.pem') };
    let pair: Pair;
    try {
      pair = { cert: await read(files.cert, 'utf8'), key: await read(files.key, 'utf8') };
    } catch {
      return false;
    }
    if (pairProblem(pair) !== undefined || this.#needsRegeneration(pair.cert)) return false;
    await this.#save({ ...this.#stored, origin: 'generated', cert: pair.cert, secrets: seal(this.#secret, JSON.stringify({ key: pair.key })) });
    this.#certificate = this.#describe(pair, 'generated');
    // The key now lives sealed in the keystore; the plain copy goes.
    await remove(dir, { recursive: true, force: true });
    this.#options.logger.info({ where: this.#documents.where }, 'moved the generated server certificate into the keystore');
    return true;
  }

  async #generate(): Promise<void> {
    // node-forge is loaded only when a certificate is made (first start, expiry), not on every start (issue 19).
    const pair = this.#options.generate === undefined ? (await import('../tls/self-signed.js')).generateSelfSigned() : this.#options.generate();
    await this.#save({ ...this.#stored, origin: 'generated', cert: pair.cert, secrets: seal(this.#secret, JSON.stringify({ key: pair.key })), pending: undefined });
    this.#certificate = this.#describe(pair, 'generated');
    this.#options.logger.info({ fingerprint256: this.#certificate.fingerprint256 }, 'generated a self-signed server certificate');
  }

  #watch(): void {
    const interval = this.#options.watchIntervalMs ?? 5000;
    if (interval <= 0) return;
    const { certFile, keyFile } = this.#options.tls;
    const changed = (): void => void this.reloadConfigured();
    watchFile(certFile, { interval, persistent: false }, changed);
    watchFile(keyFile, { interval, persistent: false }, changed);
    this.#watching = true;
  }
}
