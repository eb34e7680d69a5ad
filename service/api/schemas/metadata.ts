/** Request and response schemas of the metadata routes (`/metadata`): OpenHIM's export and import shapes. */
import { Type } from 'typebox';
import type { Static } from 'typebox';

/** Documents are checked one by one against their resource's body schema, so a bad one is an `Error` result, not a 400. */
const Documents = Type.Array(Type.Unknown(), { maxItems: 10_000 });

/** An import: collection name to its documents. An unknown name is answered per document, as OpenHIM does. */
export const MetadataImportBody = Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Documents, { maxProperties: 20 });
export type MetadataImportBody = Static<typeof MetadataImportBody>;

/** `?includeSecrets=true` seals secrets into the export under the passphrase in the x-junction-passphrase header. */
export const MetadataExportQuery = Type.Object({ includeSecrets: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

export const MetadataResultSchema = Type.Object({
  model: Type.String(),
  record: Type.Unknown(),
  status: Type.Enum(['Valid', 'Conflict', 'Inserted', 'Updated', 'Error']),
  message: Type.String(),
  uid: Type.String(),
});

const Exported = Type.Array(Type.Unknown());

/** OpenHIM's export: an array of one object of collections. */
export const MetadataExportSchema = Type.Array(
  Type.Object({
    Channels: Exported,
    Clients: Exported,
    Mediators: Exported,
    Users: Exported,
    ContactGroups: Exported,
    KeystoreModelAPI: Type.Optional(Exported),
  }),
);
