/**
 * `POST /metadata/validate` and `POST /metadata`: each document of an import, in dependency order, checked as the API
 * checks a body and written through the same service module (so channel listeners and polling schedules follow).
 * A document that fails gets `Error` with the API's message and the others go on. Encrypted secrets are all opened
 * before anything is written, so a wrong passphrase (400) leaves the configuration untouched.
 *
 * `Updated` means what OpenHIM means: the imported fields replace the stored ones and fields the document does not
 * carry stay as they were. Secrets an import does not carry are kept, never wiped.
 */
import { AppError } from '../errors.js';
import { invalidInput } from '../refusals.js';
import type { ValidationProblem } from '../contracts/api.js';
import type { MetadataResult, MetadataStatus } from '../contracts/metadata.js';
import { canUpdateUser } from '../domain/access/permissions.js';
import { channelDraft } from '../domain/channels/channel-draft.js';
import type { ChannelInput } from '../domain/channels/channel-draft.js';
import { channelProblems } from '../domain/channels/channel-rules.js';
import { groupName, groupProblems, groupRecipients } from '../domain/alerts/contact-groups.js';
import { registrationProblems } from '../domain/channels/mediator-registration.js';
import type { RegistrationDoc } from '../domain/channels/mediator-registration.js';
import {
  IMPORT_ORDER,
  clientSecretFields,
  isRecordModel,
  isSecretList,
  keepStoredConfigPasswords,
  keepStoredRoutePasswords,
  resolveGroupRefs,
  uidOf,
  userPasswordHash,
  withSecrets,
} from '../domain/operations/metadata.js';
import type { RecordModel, SecretEntry } from '../domain/operations/metadata.js';
import { authorOf } from '../accounts/users.js';
import type { Author } from '../accounts/users.js';
import { clientSecretsProblem } from '../accounts/clients.js';
import type { ClientCreateInput } from '../contracts/clients.js';
import type { UserCreateInput, UserUpdateInput } from '../contracts/users.js';
import type { ContactGroupCreateInput } from '../contracts/contact-groups.js';
import type { ChannelRecord, ClientRecord, ContactGroupRecord, MediatorRecord, UserRecord } from '../storage/records.js';
import { SECRETS_FIELD } from './exporter.js';
import { checkPassphrase, isEncryptedSecrets, SecretOpener } from './secrets.js';
import type { BodyCheck, MetadataServices } from './services.js';

export interface ImportOptions {
  /** Validate only: report Valid or Conflict, write nothing. */
  dryRun: boolean;
  /** The admin importing: the author (`updatedBy`) of what is written, and whose rights apply. */
  actor: UserRecord;
  /** The passphrase the export's secrets were sealed with, when it has any. */
  passphrase?: string;
  check: BodyCheck;
  logger: ImportLog;
}

/** Where each result is logged (the request's logger). */
export interface ImportLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** OpenHIM accepts `Keystore` from its own console for what it exports as `KeystoreModelAPI`; both mean the keystore here. */
const KEYSTORE_KEYS = ['KeystoreModelAPI', 'Keystore'];

interface Item {
  model: string;
  doc: unknown;
  /** The opened secrets of the document; undefined when it carried none. */
  secrets?: SecretEntry[];
  /** Why the document cannot be imported before it is even looked at. */
  error?: string;
}

/** The document as results show it: its sealed secrets left out. */
function shown(doc: unknown): unknown {
  if (typeof doc !== 'object' || doc === null || !(SECRETS_FIELD in doc)) return doc;
  const { [SECRETS_FIELD]: _sealed, ...rest } = doc as Record<string, unknown>;
  return rest;
}

/** The documents in the order they are worked on: known collections by IMPORT_ORDER, then unknown keys as sent. */
function ordered(body: Readonly<Record<string, readonly unknown[]>>): Item[] {
  const keys = Object.keys(body);
  const rank = (key: string) => {
    const at = IMPORT_ORDER.indexOf((key === 'Keystore' ? 'KeystoreModelAPI' : key) as never);
    return at === -1 ? IMPORT_ORDER.length : at;
  };
  return keys
    .map((key, i) => ({ key, i }))
    .sort((a, b) => rank(a.key) - rank(b.key) || a.i - b.i)
    .flatMap(({ key }) => (body[key] ?? []).map((doc) => ({ model: key, doc })));
}

/** Opens every document's sealed secrets up front: a missing or wrong passphrase is a 400 for the whole import. */
async function openSecrets(items: Item[], passphrase: string | undefined): Promise<void> {
  const sealed = items.filter((item) => typeof item.doc === 'object' && item.doc !== null && SECRETS_FIELD in item.doc);
  if (sealed.length === 0) return;
  const opener = new SecretOpener(checkPassphrase(passphrase, 'This import carries encrypted secrets, so it'));
  for (const item of sealed) {
    const value = (item.doc as Record<string, unknown>)[SECRETS_FIELD];
    if (!isEncryptedSecrets(value)) {
      item.error = `${SECRETS_FIELD} is not the encrypted secrets of a Junction export`;
      continue;
    }
    const opened = await opener.open(value, item.model === 'Keystore' ? 'KeystoreModelAPI' : item.model);
    if (isSecretList(opened) || KEYSTORE_KEYS.includes(item.model)) item.secrets = opened as SecretEntry[];
    else item.error = `${SECRETS_FIELD} does not hold secrets in the form Junction exports them`;
  }
}

/** What the import knows of the stored configuration, kept current as it writes. */
interface Known {
  groupIdsByName: Map<string, string>;
  groupIds: Set<string>;
  groupsByName: Map<string, ContactGroupRecord>;
  channels: Map<string, ChannelRecord>;
  clients: Map<string, ClientRecord>;
  mediators: Map<string, MediatorRecord>;
}

async function known(services: MetadataServices): Promise<Known> {
  const [groups, channels, clients, mediators] = await Promise.all([services.contactGroups.list(), services.channels.list(false), services.clients.list(), services.mediators.list()]);
  return {
    groupIdsByName: new Map(groups.map((g) => [g.group, g._id])),
    groupIds: new Set(groups.map((g) => g._id)),
    groupsByName: new Map(groups.map((g) => [g.group, g])),
    channels: new Map(channels.map((c) => [c.name, c])),
    clients: new Map(clients.map((c) => [c.clientID, c])),
    mediators: new Map(mediators.map((m) => [m.urn, m])),
  };
}

function refuse(problems: readonly ValidationProblem[]): void {
  if (problems.length > 0) throw invalidInput(problems);
}

/** Validates or imports an import body; one result per document. */
export async function importMetadata(services: MetadataServices, body: Readonly<Record<string, readonly unknown[]>>, options: ImportOptions): Promise<MetadataResult[]> {
  const items = ordered(body);
  await openSecrets(items, options.passphrase);
  const state = await known(services);
  const author = authorOf(options.actor);
  const results: MetadataResult[] = [];
  let channelsWritten = false;
  for (const item of items) {
    const model = item.model;
    const uid = isRecordModel(model) ? uidOf(model, item.doc) : '';
    const result = (status: MetadataStatus, message = ''): MetadataResult => ({ model, record: shown(item.doc), status, message, uid });
    try {
      if (item.error !== undefined) throw new AppError('VALIDATION_FAILED', item.error);
      if (KEYSTORE_KEYS.includes(model)) {
        results.push(result(await importKeystore(services, item, options.dryRun)));
        continue;
      }
      if (!isRecordModel(model)) throw new AppError('BAD_REQUEST', `Invalid Collection in Import Object: ${model} is not one of Channels, Clients, Mediators, Users, ContactGroups, KeystoreModelAPI`);
      const status = await importOne(services, state, model, item, { ...options, author });
      if (model === 'Channels' && !options.dryRun) channelsWritten = true;
      options.logger.info({ model, uid, status, by: options.actor.email }, options.dryRun ? 'metadata validated' : 'metadata imported');
      results.push(result(status));
    } catch (err) {
      if (!(err instanceof AppError)) options.logger.error({ err, model, uid }, 'metadata import failed');
      const message = err instanceof AppError ? err.message : 'An internal error occurred; the details are in the service log';
      results.push(result('Error', message));
    }
  }
  // The listeners of imported tcp and tls channels are bound (or have failed) before the answer, as the channel API waits.
  if (channelsWritten) await services.channels.listenersSettled();
  return results;
}

async function importKeystore(services: MetadataServices, item: Item, dryRun: boolean): Promise<MetadataStatus> {
  if (services.keystore === undefined) throw new AppError('BAD_REQUEST', 'This Junction cannot import a keystore; add its certificates on the Certificates page');
  if (typeof item.doc !== 'object' || item.doc === null) throw new AppError('VALIDATION_FAILED', 'A keystore document must be an object');
  return services.keystore.importDoc(shown(item.doc) as Record<string, unknown>, item.secrets, dryRun);
}

type Step = ImportOptions & { author: Author };

/** One document: checked, then (unless validating) written through its service. */
async function importOne(services: MetadataServices, state: Known, model: RecordModel, item: Item, step: Step): Promise<MetadataStatus> {
  const secrets = item.secrets ?? [];
  const raw = shown(item.doc);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new AppError('VALIDATION_FAILED', `A document of ${model} must be an object`);
  const uid = uidOf(model, raw);
  switch (model) {
    case 'ContactGroups': {
      const { body, problems } = step.check(model, raw);
      refuse(problems);
      const input = body as unknown as ContactGroupCreateInput;
      const existing = state.groupsByName.get(uid);
      if (step.dryRun) {
        if (existing !== undefined) return 'Conflict';
        refuse(groupProblems(groupName(input.group), groupRecipients(input.users ?? [])));
        // Channels later in the same import may name it.
        state.groupIdsByName.set(uid, `pending:${uid}`);
        return 'Valid';
      }
      const saved = existing === undefined ? await services.contactGroups.create(input) : await services.contactGroups.update(existing._id, input);
      state.groupIdsByName.set(saved.group, saved._id);
      state.groupIds.add(saved._id);
      state.groupsByName.set(saved.group, saved);
      return existing === undefined ? 'Inserted' : 'Updated';
    }
    case 'Users': {
      const { body, problems } = step.check(model, raw);
      refuse(problems);
      const hash = userPasswordHash(secrets);
      const existing = await services.users.findByEmail(uid);
      if (step.dryRun) return existing === null ? 'Valid' : 'Conflict';
      if (existing === null) {
        const input = body as unknown as UserCreateInput;
        await (hash === undefined ? services.users.create(input) : services.users.createWithHash(input, hash));
        return 'Inserted';
      }
      const changes = body as unknown as UserUpdateInput;
      const decision = canUpdateUser(step.actor, existing, changes);
      if (!decision.allowed) throw new AppError(decision.code ?? 'FORBIDDEN', decision.reason);
      // The hash first: it is checked before it is written, so a bad one leaves the user as it was.
      const target = hash === undefined ? existing : await services.users.replaceHash(existing, hash);
      await services.users.update(target, changes);
      // As after a password change; the importing admin's own sessions stay, or the import would sign them out.
      if (hash !== undefined && existing._id !== step.actor._id) await services.sessions?.destroyForUser(existing._id);
      return 'Updated';
    }
    case 'Clients': {
      const { body, problems } = step.check(model, raw);
      refuse(problems);
      const fields = clientSecretFields(secrets);
      const secretProblem = clientSecretsProblem(fields);
      if (secretProblem !== null) refuse([secretProblem]);
      const existing = state.clients.get(uid);
      if (step.dryRun) return existing === undefined ? 'Valid' : 'Conflict';
      const hasSecrets = Object.keys(fields).length > 0;
      if (existing === undefined) {
        const created = await services.clients.create(body as unknown as ClientCreateInput);
        // A digest another client holds (409) must not leave the new client half made: it is removed again.
        const saved = hasSecrets ? await services.clients.restoreSecrets(created._id, fields).catch(async (err: unknown) => {
          await services.clients.remove(created._id);
          throw err;
        }) : created;
        state.clients.set(saved.clientID, saved);
        return 'Inserted';
      }
      const saved = hasSecrets ? await services.clients.restoreSecrets(existing._id, fields) : existing;
      state.clients.set(uid, await services.clients.update(saved._id, body));
      return 'Updated';
    }
    case 'Channels': {
      const { body, problems } = step.check(model, withSecrets(raw as Record<string, unknown>, secrets));
      refuse(problems);
      const { alerts, problems: refs } = resolveGroupRefs(body.alerts, state.groupIdsByName, state.groupIds);
      refuse(refs);
      const input = { ...body, ...(alerts === undefined ? {} : { alerts }) } as unknown as ChannelInput;
      const existing = state.channels.get(uid);
      if (step.dryRun) {
        if (existing !== undefined) return 'Conflict';
        // Groups still pending in this validation have no id yet; the catalogue checks ids only when writing.
        refuse(channelProblems(channelDraft(input)));
        return 'Valid';
      }
      if (existing === undefined) {
        const created = await services.channels.create(input, step.author);
        state.channels.set(created.name, created);
        return 'Inserted';
      }
      const hasRoutePasswords = secrets.some((s) => s.path[0] === 'routes');
      const changes = hasRoutePasswords ? input : { ...input, routes: keepStoredRoutePasswords(input.routes, existing.routes) };
      const { channel } = await services.channels.update(existing._id, changes, step.author);
      state.channels.set(channel.name, channel);
      return 'Updated';
    }
    case 'Mediators': {
      const { body, problems } = step.check(model, withSecrets(raw as Record<string, unknown>, secrets));
      refuse(problems);
      const doc = body as unknown as RegistrationDoc;
      const existing = state.mediators.get(uid);
      if (step.dryRun) {
        if (existing !== undefined) return 'Conflict';
        refuse(registrationProblems(doc, true));
        return 'Valid';
      }
      if (existing === undefined) {
        const { mediator } = await services.mediators.register(doc, step.author);
        state.mediators.set(mediator.urn, mediator);
        return 'Inserted';
      }
      // The registration belongs to the mediator: as when it registers, only a higher version replaces it. The
      // configuration is the administrator's, and is applied whatever the version.
      const { mediator } = await services.mediators.register(doc, step.author);
      let saved = mediator;
      if (doc.config !== undefined) {
        const hasConfigSecrets = secrets.some((s) => s.path[0] === 'config');
        const config = hasConfigSecrets ? doc.config : keepStoredConfigPasswords(doc.config, mediator);
        saved = await services.mediators.updateConfig(uid, config, step.author);
      }
      state.mediators.set(uid, saved);
      return 'Updated';
    }
  }
}
