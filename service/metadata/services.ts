/** What export and import work through: the same service modules the API's routes use, never the raw store. */
import type { ValidationProblem } from '../contracts/api.js';
import type { EncryptedSecrets } from '../contracts/metadata.js';
import type { RecordModel } from '../domain/operations/metadata.js';
import type { ChannelCatalogue } from '../channels/catalogue.js';
import type { ClientAccounts } from '../accounts/clients.js';
import type { UserAccounts } from '../accounts/users.js';
import type { ContactGroups } from '../contacts/groups.js';
import type { MediatorRegistry } from '../mediators/registry.js';

/**
 * The seam for the keystore (service/keystore/, built separately): its public part (server certificate, trusted CAs)
 * for an export, the key and passphrase only sealed when secrets are asked for; and the import of such a document.
 */
export interface KeystoreMetadata {
  exportPublic(seal?: (secrets: unknown) => EncryptedSecrets): Promise<Record<string, unknown>>;
  importDoc(doc: Record<string, unknown>, secrets: unknown, dryRun: boolean): Promise<'Conflict' | 'Updated'>;
}

/**
 * A document checked as the API checks a body for the same resource (its TypeBox schema, defaults applied), and the
 * body it stands for (read-only fields dropped). Given by the API layer, which owns the schemas.
 */
export type BodyCheck = (model: RecordModel, doc: unknown) => { body: Record<string, unknown>; problems: ValidationProblem[] };

export interface MetadataServices {
  channels: ChannelCatalogue;
  clients: ClientAccounts;
  users: UserAccounts;
  contactGroups: ContactGroups;
  mediators: MediatorRegistry;
  keystore?: KeystoreMetadata;
  /** Sign-in sessions: a user whose password hash an import replaces is signed out elsewhere, as after a password change. */
  sessions?: { destroyForUser(userId: string, exceptSessionId?: string): Promise<number> };
}
