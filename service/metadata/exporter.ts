/**
 * `GET /metadata`: the configuration as one object of collections (OpenHIM's shape), every document in the form an
 * import takes back (domain/operations/metadata.ts). Secrets stay out unless a passphrase is given; then each document's
 * secrets travel beside it, encrypted (secrets.ts).
 */
import type { EncryptedSecrets } from '../contracts/metadata.js';
import { exportChannel, exportClient, exportContactGroup, exportMediator, exportUser } from '../domain/operations/metadata.js';
import type { Exported, RecordModel } from '../domain/operations/metadata.js';
import type { MetadataServices } from './services.js';
import { SecretSealer } from './secrets.js';

/** The field of an exported document that holds its encrypted secrets. */
export const SECRETS_FIELD = 'encryptedSecrets';

export type ExportedDoc = Record<string, unknown> & { [SECRETS_FIELD]?: EncryptedSecrets };
export type MetadataExport = Record<RecordModel, ExportedDoc[]> & { KeystoreModelAPI?: unknown[] };

/** Reads every collection and shapes it for export; with a passphrase, secrets are sealed under it. */
export async function exportMetadata(services: MetadataServices, passphrase?: string): Promise<MetadataExport> {
  const [channels, clients, mediators, users, groups] = await Promise.all([
    services.channels.list(false),
    services.clients.list(),
    services.mediators.list(),
    services.users.list(),
    services.contactGroups.list(),
  ]);
  const groupNames = new Map(groups.map((g) => [g._id, g.group]));
  const sealer = passphrase === undefined ? undefined : await SecretSealer.create(passphrase);
  const shape = (model: RecordModel, exported: Exported): ExportedDoc => {
    if (sealer === undefined || exported.secrets.length === 0) return exported.doc;
    return { ...exported.doc, [SECRETS_FIELD]: sealer.seal(exported.secrets, model) };
  };
  const result: MetadataExport = {
    Channels: channels.map((c) => shape('Channels', exportChannel(c, groupNames))),
    Clients: clients.map((c) => shape('Clients', exportClient(c))),
    Mediators: mediators.map((m) => shape('Mediators', exportMediator(m))),
    Users: users.map((u) => shape('Users', exportUser(u))),
    ContactGroups: groups.map((g) => shape('ContactGroups', exportContactGroup(g))),
  };
  // The keystore's public part joins the export once service/keystore/ offers it (see MetadataServices.keystore).
  if (services.keystore !== undefined) result.KeystoreModelAPI = [await services.keystore.exportPublic(sealer === undefined ? undefined : (value) => sealer.seal(value, 'KeystoreModelAPI'))];
  return result;
}
