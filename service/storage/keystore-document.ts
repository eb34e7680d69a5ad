/**
 * Where the keystore keeps its one document (keystore/keystore.ts): a file beside the embedded stores, or a row that
 * several instances share. The document is JSON text whose private parts are already sealed, so an engine stores it
 * as given. Each write names the version it replaces, so two instances changing it at once never lose a change.
 */

/** The stored document and its version (opaque: compared for equality only). */
export interface KeystoreDocument {
  text: string;
  version: string;
}

/** One keystore document. All methods reject with a `StoreError` on failure. */
export interface KeystoreDocumentStore {
  /** Where the document is kept, for messages: a file path or a database. */
  readonly where: string;
  /** The document, or null when none has been written yet. */
  read(): Promise<KeystoreDocument | null>;
  /** The version alone (cheap: what a reload compares), or null when none has been written yet. */
  version(): Promise<string | null>;
  /**
   * Replaces the document when the stored version is still `expected` (null: nothing stored yet) and returns the new
   * version; returns null, writing nothing, when another writer came first.
   */
  write(text: string, expected: string | null): Promise<string | null>;
}
