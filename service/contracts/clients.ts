/** Client resources as the management API shows them (`/clients`), in OpenHIM's field names. Import with `import type`. */

/** The descriptive fields a client may have or not. */
export interface ClientDetails {
  organization?: string;
  location?: string;
  softwareName?: string;
  description?: string;
  contactPerson?: string;
  contactPersonEmail?: string;
}

/** The public view of a client: which credentials are set, never the secrets themselves. */
export interface PublicClient extends ClientDetails {
  _id: string;
  clientID: string;
  name: string;
  /** Must equal the certificate's CN when the client authenticates with mutual TLS. */
  clientDomain?: string;
  roles: string[];
  passwordAlgorithm?: string;
  hasPassword: boolean;
  /** OpenHIM's flag: a custom token is set (the token itself is never shown). */
  customTokenSet: boolean;
  /**
   * Fingerprint of the registered certificate, upper-case hex pairs joined by colons: SHA-256 when the certificate
   * was given as PEM, or the digest it was registered with (OpenHIM's console sends SHA-1).
   */
  certFingerprint?: string;
  certificateSubjectCN?: string;
  createdAt: string;
  updatedAt: string;
}

/** An OpenHIM client's salted password hash, imported as given instead of a password. */
export interface PrehashedPassword {
  /** `scrypt` is what Junction's answers show for its own hashes: accepted back, and then ignored. */
  passwordAlgorithm?: 'sha512' | 'sha256' | 'scrypt';
  /** Hex digest of password + salt. */
  passwordHash?: string;
  passwordSalt?: string;
}

/**
 * Fields of an answer that a caller may send back unchanged (OpenHIM's console saves the object it fetched): they are
 * accepted and ignored. `__v` is Mongo's version key, found in documents fetched from OpenHIM.
 */
export interface ClientReadOnlyFields {
  _id?: string;
  __v?: number;
  hasPassword?: boolean;
  customTokenSet?: boolean;
  certificateSubjectCN?: string;
  createdAt?: string;
  updatedAt?: string;
}

/** A field that may be sent as null (text may also be OpenHIM's empty string, which the types cannot tell apart). */
type Unset<T> = { [K in keyof T]?: T[K] | null };

/**
 * `POST /clients`. null and '' mean "not set", as OpenHIM's console sends unused fields. A credential is a password
 * (or an imported hash), a PEM certificate or a certificate fingerprint, and/or a custom token.
 */
export interface ClientCreateInput extends Unset<ClientDetails>, ClientReadOnlyFields {
  clientID: string;
  name: string;
  clientDomain?: string | null;
  roles?: string[];
  passwordAlgorithm?: 'sha512' | 'sha256' | 'scrypt' | null;
  passwordHash?: string | null;
  passwordSalt?: string | null;
  /** Basic-auth password, at least 8 characters; stored hashed. */
  password?: string | null;
  /** One PEM X.509 certificate. */
  certificate?: string | null;
  /** A certificate's SHA-1 or SHA-256 fingerprint, hex with or without colons, either case. */
  certFingerprint?: string | null;
  /** OpenHIM's custom token; at least 16 characters; stored as a digest, so it cannot be shown again. */
  customTokenID?: string | null;
}

/**
 * `PUT /clients/:_id`: omitted fields stay; null or '' removes a descriptive field, and null removes a credential
 * ('' leaves a credential as it is: an empty form field is not a request to delete it).
 */
export type ClientUpdateInput = Partial<ClientCreateInput>;

/** `GET /clients/:_id/clientName`: the client's name alone, for any signed-in user (OpenHIM's projection). */
export interface ClientNameAnswer {
  name: string;
}
