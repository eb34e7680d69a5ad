/**
 * Configuration export and import (`GET /metadata`, `POST /metadata/validate`, `POST /metadata`) in OpenHIM's shapes:
 * an export is an array of one object keyed by collection name, and every imported document gets one result.
 * Import with `import type`.
 */

/** The collections an export holds and an import accepts, by OpenHIM's names. */
export type MetadataModel = 'Channels' | 'Clients' | 'Mediators' | 'Users' | 'ContactGroups' | 'KeystoreModelAPI';

/** What became of one document: `Valid`/`Conflict` from validate, `Inserted`/`Updated` from import, `Error` from either. */
export type MetadataStatus = 'Valid' | 'Conflict' | 'Inserted' | 'Updated' | 'Error';

/** One document's result, as OpenHIM answers it. */
export interface MetadataResult {
  /** The collection key the document came under (an unknown key is reported as sent). */
  model: string;
  /** The document as sent, its encrypted secrets left out. */
  record: unknown;
  status: MetadataStatus;
  /** '' unless `Error`: then what was wrong, worded as the API words it. */
  message: string;
  /** The document's unique key: a channel's name, a client's clientID, a mediator's urn, a user's email, a group's name. */
  uid: string;
}

/**
 * The secrets of one exported document, encrypted with the passphrase given at export (scrypt, then AES-256-GCM).
 * Present only in an export made with `includeSecrets=true`; an import needs the same passphrase to read it.
 */
export interface EncryptedSecrets {
  /** The scheme, so a later version can read older exports: `scrypt-aes-256-gcm`. */
  alg: 'scrypt-aes-256-gcm';
  /** scrypt's cost parameters and salt (base64), shared by every document of one export. */
  N: number;
  r: number;
  p: number;
  salt: string;
  /** AES-GCM's nonce, tag and the ciphertext (base64). */
  iv: string;
  tag: string;
  data: string;
}

/** The request header that carries the passphrase of an export with secrets, and of an import of one. */
export const PASSPHRASE_HEADER = 'x-junction-passphrase';

/** The field each collection's documents are unique by (OpenHIM's keys; a contact group by its name, `group`). */
export const UNIQUE_FIELD = { Channels: 'name', Clients: 'clientID', Mediators: 'urn', Users: 'email', ContactGroups: 'group' } as const;
