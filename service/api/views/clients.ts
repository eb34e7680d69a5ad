/** The public view of a client, as every answer shows it. */
import { certificateSubjectCN } from '../../accounts/client-credentials.js';
import { CLIENT_OPTIONAL_FIELDS } from '../../accounts/clients.js';
import type { ClientRecord } from '../../storage/records.js';
import type { PublicClient } from '../schemas/clients.js';

/** The public view of a client: descriptive fields and which credentials are set, never the secrets themselves. */
export function publicClient(client: ClientRecord): PublicClient {
  const view: PublicClient = {
    _id: client._id,
    clientID: client.clientID,
    name: client.name,
    roles: [...client.roles],
    hasPassword: client.passwordHash !== undefined,
    customTokenSet: client.customTokenHash !== undefined,
    createdAt: client.createdAt.toISOString(),
    updatedAt: client.updatedAt.toISOString(),
  };
  for (const field of CLIENT_OPTIONAL_FIELDS) {
    const value = client[field];
    if (value !== undefined) view[field] = value;
  }
  if (client.passwordHash !== undefined && client.passwordAlgorithm !== undefined) view.passwordAlgorithm = client.passwordAlgorithm;
  if (client.certFingerprint !== undefined) view.certFingerprint = client.certFingerprint;
  const cn = client.certPem === undefined ? undefined : certificateSubjectCN(client.certPem);
  if (cn !== undefined) view.certificateSubjectCN = cn;
  return view;
}
