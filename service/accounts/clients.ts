/**
 * Client accounts (the systems that send transactions): creation, updates and deletion over the clients collection,
 * from bodies in OpenHIM's shape (a fetched client sent back as it came: read-only fields ignored, null and '' read as
 * "not set"). Secrets are stored as digests (client-credentials.ts). A client's roles and clientID share one namespace with the
 * channels' `allow` lists, so writes keep the two apart (domain/access/roles.ts) and keep channel grants following the client.
 */
import { AppError } from '../errors.js';
import type { ClientCreateInput, ClientUpdateInput } from '../contracts/clients.js';
import type { ValidationProblem } from '../contracts/api.js';
import { clientRolesProblem } from '../domain/access/roles.js';
import type { ClientRolesInput } from '../domain/access/roles.js';
import { conflict, refusal } from '../refusals.js';
import type { ChannelRecord, ClientRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';
import { secretChanges } from './client-credentials.js';
import { isPasswordHash } from './passwords.js';
import type { ClientSecretsInput } from './client-credentials.js';

/** The descriptive fields a client may have or not; null on update removes one. */
export const CLIENT_OPTIONAL_FIELDS = ['clientDomain', 'organization', 'location', 'softwareName', 'description', 'contactPerson', 'contactPersonEmail'] as const;

/** A `POST /clients` payload, secrets included (a plain password, or an OpenHIM hash imported as given). */
export type NewClient = ClientCreateInput;

/** A `PUT /clients/:clientId` payload: omitted fields stay; null or '' removes a descriptive field, null a credential. */
export type ClientChanges = ClientUpdateInput;

const SECRET_FIELDS = ['password', 'passwordAlgorithm', 'passwordHash', 'passwordSalt', 'certificate', 'certFingerprint', 'customTokenID'] as const;

/** The body's secrets, with '' read as "not sent": an empty form field never deletes a credential. */
function secretsOf(input: ClientUpdateInput): ClientSecretsInput {
  const secrets: ClientSecretsInput = {};
  for (const field of SECRET_FIELDS) {
    const value = input[field];
    if (value !== undefined && value !== '') Object.assign(secrets, { [field]: value });
  }
  return secrets;
}

/** A descriptive field as sent: undefined = leave, null = remove ('' is OpenHIM's empty text, the same as null). */
function optionalField(input: ClientUpdateInput, field: (typeof CLIENT_OPTIONAL_FIELDS)[number]): string | null | undefined {
  const value = input[field];
  return value === '' ? null : value;
}

/** Exported client secrets (metadata import) that Junction could not use: a hash it cannot check, a digest of the wrong form. */
export function clientSecretsProblem(secrets: Partial<Pick<ClientRecord, 'passwordHash' | 'passwordAlgorithm' | 'passwordSalt' | 'customTokenHash'>>): ValidationProblem | null {
  const { passwordHash, passwordAlgorithm, passwordSalt, customTokenHash } = secrets;
  if (passwordHash !== undefined) {
    const usable =
      passwordAlgorithm === 'scrypt'
        ? isPasswordHash(passwordHash)
        : (passwordAlgorithm === 'sha512' || passwordAlgorithm === 'sha256') && /^[0-9a-fA-F]{64,128}$/.test(passwordHash) && passwordSalt !== undefined;
    if (!usable) return { path: 'secrets.passwordHash', message: "is not a password hash Junction can check (scrypt, or OpenHIM's sha512 or sha256 with its salt)" };
  }
  if (customTokenHash !== undefined && !/^[0-9a-f]{64}$/.test(customTokenHash)) return { path: 'secrets.customTokenHash', message: 'is not a custom token digest' };
  return null;
}

export interface ClientAccountsOptions {
  clients: Collection<ClientRecord>;
  /** The channels whose `allow` lists name clients; the same collection every channel writer uses. */
  channels: Collection<ChannelRecord>;
}

const clientConflict = conflict({
  message: (field) => `Another client already uses this ${field}`,
  problem: 'already in use by another client',
  // Stored field → the body field a caller sets it with, so a 409 names what to change.
  bodyFields: { clientID: 'clientID', customTokenHash: 'customTokenID', certFingerprint: 'certFingerprint' },
});

export class ClientAccounts {
  readonly #clients: Collection<ClientRecord>;
  readonly #channels: Collection<ChannelRecord>;

  constructor(options: ClientAccountsOptions) {
    this.#clients = options.clients;
    this.#channels = options.channels;
  }

  /** All clients, ordered by clientID. */
  list(): Promise<ClientRecord[]> {
    return this.#clients.find({}, { sort: { clientID: 1 } });
  }

  /** The client with this `_id`; 404 when unknown. */
  async get(id: string): Promise<ClientRecord> {
    const client = await this.#clients.findById(id);
    if (client === null) throw new AppError('NOT_FOUND', `No client with _id ${id}`);
    return client;
  }

  /** The client with this clientID (OpenHIM's `?byNamedClientID=true`); 404 when unknown. */
  async getByClientID(clientID: string): Promise<ClientRecord> {
    const client = await this.#clients.findOne({ clientID });
    if (client === null) throw new AppError('NOT_FOUND', `No client with clientID ${clientID}`);
    return client;
  }

  /** The client with this domain; 404 when none has it. */
  async getByDomain(clientDomain: string): Promise<ClientRecord> {
    const client = await this.#clients.findOne({ clientDomain });
    if (client === null) throw new AppError('NOT_FOUND', `No client with domain ${clientDomain}`);
    return client;
  }

  /** Creates a client; 400 for a role that clashes or a bad secret, 409 when a unique field is taken. */
  async create(input: NewClient): Promise<ClientRecord> {
    const roles = [...new Set(input.roles ?? [])];
    await this.#refuseRoleClash({ clientID: input.clientID, roles }, { clientID: true, roles: true });
    const secrets = await secretChanges(secretsOf(input));
    const now = new Date();
    const record: Omit<ClientRecord, '_id'> = { clientID: input.clientID, name: input.name, roles, ...secrets.set, createdAt: now, updatedAt: now };
    for (const field of CLIENT_OPTIONAL_FIELDS) {
      const value = optionalField(input, field);
      if (typeof value === 'string') record[field] = value;
    }
    return this.#clients.insert(record).catch(clientConflict);
  }

  /** Applies a partial update; a new clientID carries the client's channel grants with it. 404 when unknown. */
  async update(id: string, changes: ClientChanges): Promise<ClientRecord> {
    const target = await this.get(id);
    const renamed = changes.clientID !== undefined && changes.clientID !== target.clientID ? changes.clientID : undefined;
    const roles = changes.roles === undefined ? undefined : [...new Set(changes.roles)];
    const after = { _id: target._id, clientID: renamed ?? target.clientID, roles: roles ?? target.roles };
    await this.#refuseRoleClash(after, { clientID: renamed !== undefined, roles: roles !== undefined });
    const secrets = await secretChanges(secretsOf(changes), target);
    const set: Partial<Omit<ClientRecord, '_id'>> = { ...secrets.set, updatedAt: new Date() };
    const unset: Exclude<keyof ClientRecord, '_id'>[] = [...secrets.unset];
    if (changes.clientID !== undefined) set.clientID = changes.clientID;
    if (changes.name !== undefined) set.name = changes.name;
    if (roles !== undefined) set.roles = roles;
    for (const field of CLIENT_OPTIONAL_FIELDS) {
      const value = optionalField(changes, field);
      if (value === null) unset.push(field);
      else if (value !== undefined) set[field] = value;
    }
    const updated = await this.#clients.updateById(target._id, { set, unset }).catch(clientConflict);
    if (updated === null) throw new AppError('NOT_FOUND', `No client with _id ${target._id}`);
    if (renamed !== undefined) await this.#regrant(target.clientID, renamed);
    return updated;
  }

  /** Deletes a client and its channel grants; returns it as it was. 404 when unknown. */
  async remove(id: string): Promise<ClientRecord> {
    const target = await this.get(id);
    await this.#clients.removeById(target._id);
    // A later client reusing this clientID must not inherit the old one's channel access.
    await this.#regrant(target.clientID, null);
    return target;
  }

  /**
   * Metadata import with secrets: puts back a client's password hash and custom token digest as another Junction
   * exported them (the API takes only plain secrets, which an export never has). 400 for a malformed one, 409 when
   * the token digest is another client's.
   */
  async restoreSecrets(id: string, secrets: Partial<Pick<ClientRecord, 'passwordHash' | 'passwordAlgorithm' | 'passwordSalt' | 'customTokenHash'>>): Promise<ClientRecord> {
    const problem = clientSecretsProblem(secrets);
    if (problem !== null) throw refusal('VALIDATION_FAILED', problem);
    const { passwordHash, passwordAlgorithm } = secrets;
    const set: Partial<Omit<ClientRecord, '_id'>> = { ...secrets, updatedAt: new Date() };
    const unset: Exclude<keyof ClientRecord, '_id'>[] = passwordHash !== undefined && passwordAlgorithm === 'scrypt' ? ['passwordSalt'] : [];
    const updated = await this.#clients.updateById(id, { set, unset }).catch(clientConflict);
    if (updated === null) throw new AppError('NOT_FOUND', `No client with _id ${id}`);
    return updated;
  }

  /**
   * Channel `allow` lists mix client ids and role names, so a name must not be both (domain/access/roles.ts). An entry found
   * only in `allow` is not checked: it may be a grant made before the client was registered.
   */
  async #refuseRoleClash(client: ClientRolesInput, sent: { clientID: boolean; roles: boolean }): Promise<void> {
    const problem = clientRolesProblem(await this.#clients.find({}), client, sent);
    if (problem !== null) throw refusal(problem.code, { path: problem.path, message: problem.message });
  }

  /** Keeps channel grants pointing at the client when its clientID changes, and drops them when it is deleted. */
  async #regrant(from: string, to: string | null): Promise<void> {
    const channels = await this.#channels.find({ allow: from });
    for (const channel of channels) {
      const allow = to === null ? channel.allow.filter((a) => a !== from) : [...new Set(channel.allow.map((a) => (a === from ? to : a)))];
      await this.#channels.updateById(channel._id, { set: { allow, updatedAt: new Date() } });
    }
  }
}
