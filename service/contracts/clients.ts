/** Client resources as the management API shows them (`/clients`). Import with `import type`. */

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
  hasCustomToken: boolean;
  /** SHA-256 fingerprint of the registered certificate, colon-separated hex. */
  certFingerprint?: string;
  certificateSubjectCN?: string;
  createdAt: string;
  updatedAt: string;
}

/** An OpenHIM client's salted password hash, imported as given instead of a password. */
export interface PrehashedPassword {
  passwordAlgorithm?: 'sha512' | 'sha256';
  /** Hex digest of password + salt. */
  passwordHash?: string;
  passwordSalt?: string;
}

/** `POST /clients`. */
export interface ClientCreateInput extends ClientDetails, PrehashedPassword {
  clientID: string;
  name: string;
  clientDomain?: string;
  roles?: string[];
  /** Basic-auth password, at least 8 characters; stored hashed. */
  password?: string;
  /** One PEM X.509 certificate. */
  certificate?: string;
  /** At least 16 characters; stored as a digest, so it cannot be shown again. */
  customToken?: string;
}

type Clearable<T> = { [K in keyof T]?: T[K] | null };

/** `PUT /clients/:_id`: omitted fields stay; null removes a descriptive field or a credential. */
export interface ClientUpdateInput extends Clearable<ClientDetails>, PrehashedPassword {
  clientID?: string;
  name?: string;
  clientDomain?: string | null;
  roles?: string[];
  password?: string | null;
  certificate?: string | null;
  customToken?: string | null;
}
