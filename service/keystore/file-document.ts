/** The keystore document as a file (`<dataDir>/keystore/keystore.json`), the embedded engine's. */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { KeystoreDocument, KeystoreDocumentStore } from '../storage/keystore-document.js';
import { writeFileAtomic } from './sealed.js';

function versionOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The keystore file; its version is a hash of its content, so a change made by hand counts too. */
export class FileKeystoreDocument implements KeystoreDocumentStore {
  constructor(readonly where: string) {}

  async read(): Promise<KeystoreDocument | null> {
    let text: string;
    try {
      text = await readFile(this.where, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new Error(`Cannot read the keystore ${this.where}: ${(err as Error).message}`, { cause: err });
    }
    return { text, version: versionOf(text) };
  }

  async version(): Promise<string | null> {
    return (await this.read())?.version ?? null;
  }

  async write(text: string, expected: string | null): Promise<string | null> {
    // One process owns the file, and the keystore writes one change at a time: the check is for a hand edit.
    if ((await this.version()) !== expected) return null;
    await writeFileAtomic(this.where, text, 0o600);
    return versionOf(text);
  }
}
