/**
 * The rules of configuration export and import, pure: which collections and in what order, each document's unique
 * key, what an exported document holds (references by name, no ids, no bookkeeping), which of its values are
 * secrets, and how an imported document's references and secrets are put back. I/O is service/metadata/'s.
 */
import type { ValidationProblem } from '../../contracts/api.js';
import type { MetadataModel } from '../../contracts/metadata.js';
import { UNIQUE_FIELD } from '../../contracts/metadata.js';
import type { Channel } from '../../contracts/channels.js';
import type { ContactGroup } from '../../contracts/contact-groups.js';
import type { PublicMediator } from '../../contracts/mediators.js';
import { maskConfig } from '../channels/mediator-config.js';
import { PASSWORD_MASK } from '../util/password-mask.js';

/** The collections an export holds, in OpenHIM's order. */
export const EXPORT_MODELS = ['Channels', 'Clients', 'Mediators', 'Users', 'ContactGroups'] as const satisfies readonly MetadataModel[];
export type RecordModel = (typeof EXPORT_MODELS)[number];

/**
 * The order an import works in, whatever the body's order: contact groups before the channels whose alerts name
 * them, users before groups are no matter (groups name users by email, unchecked), channels before mediators.
 */
export const IMPORT_ORDER: readonly MetadataModel[] = ['ContactGroups', 'Users', 'Clients', 'Channels', 'Mediators', 'KeystoreModelAPI'];

/** True for a collection key an import knows. */
export function isRecordModel(key: string): key is RecordModel {
  return (EXPORT_MODELS as readonly string[]).includes(key);
}

export { UNIQUE_FIELD };

/** A document's unique key as the store compares it (emails lower-case, group names trimmed); '' when it has none. */
export function uidOf(model: RecordModel, doc: unknown): string {
  if (typeof doc !== 'object' || doc === null) return '';
  const value = (doc as Record<string, unknown>)[UNIQUE_FIELD[model]];
  if (typeof value !== 'string') return '';
  if (model === 'Users') return value.trim().toLowerCase();
  return model === 'ContactGroups' ? value.trim() : value;
}

/** A copy without OpenHIM's `_id` and `__v` at any depth. */
export function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (typeof value !== 'object' || value === null || value instanceof Date) return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => k !== '_id' && k !== '__v').map(([k, v]) => [k, withoutIds(v)]));
}

/** Where a secret sits in a document, and its value; `blank` is what stands there without it (absent when the field goes). */
export interface SecretEntry {
  path: (string | number)[];
  value: unknown;
  blank?: string;
}

/** An exported document and the secrets taken out of it. */
export interface Exported {
  doc: Record<string, unknown>;
  secrets: SecretEntry[];
}

type Doc = Record<string, unknown>;

/** Fields the service keeps for itself, which differ between instances and so never travel. */
const BOOKKEEPING = ['_id', '__v', 'createdAt', 'updatedAt', 'updatedBy'];

function without(record: object, keys: readonly string[]): Doc {
  return Object.fromEntries<unknown>(Object.entries(record).filter(([k, v]) => !keys.includes(k) && v !== undefined));
}

/** Moves the route passwords of `routes` (at `at` in the document) into `secrets`. */
function takeRoutePasswords(routes: readonly Doc[], at: (string | number)[], secrets: SecretEntry[]): Doc[] {
  return routes.map((route, i) => {
    const { password, ...rest } = route;
    if (typeof password === 'string' && password !== '') secrets.push({ path: [...at, i, 'password'], value: password });
    return rest;
  });
}

/** A channel as exported: alerts name contact groups by name (an id naming no group is kept as it was). */
export function exportChannel(channel: Pick<Channel, 'routes' | 'alerts'>, groupNames: ReadonlyMap<string, string>): Exported {
  const secrets: SecretEntry[] = [];
  const doc = without(withoutIds(channel) as Doc, BOOKKEEPING);
  doc.routes = takeRoutePasswords(doc.routes as Doc[], ['routes'], secrets);
  doc.alerts = (doc.alerts as Doc[]).map((alert) => ({ ...alert, groups: (alert.groups as string[]).map((id) => groupNames.get(id) ?? id) }));
  return { doc, secrets };
}

const CLIENT_SECRETS = ['passwordHash', 'passwordAlgorithm', 'passwordSalt', 'customTokenHash'] as const;

/**
 * What the export rules read of a stored client beyond its public fields: its credentials and certificate
 * (storage/records.ts's ClientRecord keeps them under these names).
 */
export interface ClientCredentials {
  passwordHash?: string;
  passwordAlgorithm?: 'scrypt' | 'sha512' | 'sha256';
  passwordSalt?: string;
  customTokenHash?: string;
  certPem?: string;
  certFingerprint?: string;
}

/** What a stored mediator's configuration export reads: the definitions that say which values are passwords. */
export type MediatorConfiguration = Pick<PublicMediator, 'configDefs' | 'config'>;

/** A client as exported: its certificate as PEM (public), its password and token digests as secrets. */
export function exportClient(client: ClientCredentials): Exported {
  const secrets: SecretEntry[] = [];
  const { certPem, certFingerprint } = client;
  const doc = without(client, [...BOOKKEEPING, ...CLIENT_SECRETS, 'certPem', 'certFingerprint']);
  if (certPem !== undefined) doc.certificate = certPem;
  else if (certFingerprint !== undefined) doc.certFingerprint = certFingerprint;
  for (const field of CLIENT_SECRETS) if (client[field] !== undefined) secrets.push({ path: [field], value: client[field] });
  return { doc, secrets };
}

/** A user as exported: no credentials but the password hash, which is a secret; no set-password token. */
export function exportUser(user: { passwordHash: string | null }): Exported {
  const doc = without(user, [...BOOKKEEPING, 'passwordHash', 'passwordChangedAt', 'tokenHash', 'tokenType', 'tokenExpiry', 'legacyToken', 'builtin']);
  return { doc, secrets: user.passwordHash === null ? [] : [{ path: ['passwordHash'], value: user.passwordHash }] };
}

/** A contact group as exported. */
export function exportContactGroup(group: ContactGroup): Exported {
  return { doc: without(group, BOOKKEEPING), secrets: [] };
}

/** Paths where `masked` holds the mask and `original` something else: the configuration's passwords. */
function maskedPaths(original: unknown, masked: unknown, at: (string | number)[], found: SecretEntry[]): void {
  if (masked === PASSWORD_MASK && original !== PASSWORD_MASK) {
    found.push({ path: at, value: original, blank: '' });
    return;
  }
  if (typeof masked !== 'object' || masked === null || typeof original !== 'object' || original === null) return;
  for (const [key, value] of Object.entries(masked)) {
    maskedPaths((original as Doc)[key], value, [...at, Array.isArray(masked) ? Number(key) : key], found);
  }
}

/**
 * A mediator as exported: its registration and configuration. Heartbeat state and the channels installed from its
 * defaults (ids of this instance) stay behind. Passwords in its configuration, endpoints and default channels are
 * secrets; without them a configured password exports as '' (unset).
 */
export function exportMediator(mediator: MediatorConfiguration): Exported {
  const secrets: SecretEntry[] = [];
  const doc = without(withoutIds(mediator) as Doc, [...BOOKKEEPING, 'installedChannels', '_uptime', '_lastHeartbeat', '_configModifiedTS']);
  doc.endpoints = takeRoutePasswords(doc.endpoints as Doc[], ['endpoints'], secrets);
  doc.defaultChannelConfig = (doc.defaultChannelConfig as Doc[]).map((c, i) => ({ ...c, routes: takeRoutePasswords(c.routes as Doc[], ['defaultChannelConfig', i, 'routes'], secrets) }));
  const config = structuredClone(mediator.config);
  const found: SecretEntry[] = [];
  maskedPaths(config, maskConfig(mediator.configDefs, config), ['config'], found);
  for (const entry of found) {
    secrets.push(entry);
    setAt(doc, entry.path, '');
  }
  return { doc, secrets };
}

/** Sets `value` at `path` in `doc`, making no new containers (a path that leads nowhere is skipped). */
function setAt(doc: Doc, path: readonly (string | number)[], value: unknown): boolean {
  let node: unknown = doc;
  for (const step of path.slice(0, -1)) {
    if (typeof node !== 'object' || node === null) return false;
    node = (node as Doc)[step as string];
  }
  if (typeof node !== 'object' || node === null) return false;
  const last = path[path.length - 1];
  if (last === undefined || last === '__proto__' || last === 'constructor' || last === 'prototype') return false;
  (node as Doc)[last as string] = value;
  return true;
}

/** True for a list of secrets as an export seals them. */
export function isSecretList(value: unknown): value is SecretEntry[] {
  return (
    Array.isArray(value) &&
    value.every(
      (e) =>
        typeof e === 'object' && e !== null && Array.isArray((e as SecretEntry).path) && (e as SecretEntry).path.length > 0 &&
        (e as SecretEntry).path.every((s) => typeof s === 'string' || (Number.isInteger(s) && s >= 0)),
    )
  );
}

/** The document with its secrets put back where the export took them; a copy. */
export function withSecrets(doc: Doc, secrets: readonly SecretEntry[]): Doc {
  const copy = structuredClone(doc);
  for (const entry of secrets) setAt(copy, entry.path, entry.value);
  return copy;
}

/** The secrets of a client that the API takes no plain body field for (digests and hashes), picked from opened secrets. */
export function clientSecretFields(secrets: readonly SecretEntry[]): Partial<Pick<ClientCredentials, (typeof CLIENT_SECRETS)[number]>> {
  const fields: Record<string, unknown> = {};
  for (const entry of secrets) {
    const [field] = entry.path;
    if (entry.path.length === 1 && typeof field === 'string' && (CLIENT_SECRETS as readonly string[]).includes(field) && typeof entry.value === 'string') fields[field] = entry.value;
  }
  return fields;
}

/** The password hash among a user's opened secrets, if any. */
export function userPasswordHash(secrets: readonly SecretEntry[]): string | undefined {
  const entry = secrets.find((e) => e.path.length === 1 && e.path[0] === 'passwordHash');
  return typeof entry?.value === 'string' ? entry.value : undefined;
}

/**
 * A channel's alerts with contact groups named by `_id`: a name is looked up among the groups by name; a text that
 * is already the `_id` of a group (a body written for the API, or an OpenHIM export) stays. Anything else is a problem.
 */
export function resolveGroupRefs(alerts: unknown, idsByName: ReadonlyMap<string, string>, knownIds: ReadonlySet<string>): { alerts: unknown; problems: ValidationProblem[] } {
  if (!Array.isArray(alerts)) return { alerts, problems: [] };
  const problems: ValidationProblem[] = [];
  const resolved = alerts.map((alert: unknown, i) => {
    if (typeof alert !== 'object' || alert === null || !Array.isArray((alert as Doc).groups)) return alert;
    const groups = ((alert as Doc).groups as unknown[]).map((ref, j) => {
      if (typeof ref !== 'string') return ref;
      const id = idsByName.get(ref.trim());
      if (id !== undefined) return id;
      if (!knownIds.has(ref)) problems.push({ path: `body.alerts.${i}.groups.${j}`, message: `names no contact group "${ref}"; import that group too, or remove it from the alert` });
      return ref;
    });
    return { ...(alert as Doc), groups };
  });
  return { alerts: resolved, problems };
}

/**
 * Routes of an import that carries no secrets, over a stored channel: a route with no password whose stored namesake
 * has one gets the mask, which the channel catalogue turns back into the stored password. An import without secrets
 * thus never wipes a password already configured.
 */
export function keepStoredRoutePasswords(routes: unknown, stored: readonly { name: string; password?: string }[]): unknown {
  if (!Array.isArray(routes)) return routes;
  return routes.map((route: unknown) => {
    if (typeof route !== 'object' || route === null) return route;
    const r = route as Doc;
    if (r.password !== undefined && r.password !== null && r.password !== '') return route;
    const previous = stored.find((s) => s.name === r.name)?.password;
    return previous === undefined || previous === '' ? route : { ...r, password: PASSWORD_MASK };
  });
}

/** A mediator configuration without secrets over a stored one: '' where a password is stored becomes the mask (kept on write). */
export function keepStoredConfigPasswords(config: Doc, stored: MediatorConfiguration): Doc {
  const found: SecretEntry[] = [];
  maskedPaths(stored.config, maskConfig(stored.configDefs, stored.config), ['config'], found);
  const doc = structuredClone({ config });
  for (const entry of found) {
    let node: unknown = doc;
    for (const step of entry.path) node = typeof node === 'object' && node !== null ? (node as Doc)[step as string] : undefined;
    if (node === '' || node === undefined) setAt(doc, entry.path, PASSWORD_MASK);
  }
  return doc.config;
}
