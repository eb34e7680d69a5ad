/** Typed calls of the metadata routes (admins only): the configuration exported as a file and imported from one. */
import type { MetadataResult } from '../../../service/contracts/metadata';
import { PASSPHRASE_HEADER } from '../../../service/contracts/metadata';
import { api } from './client';

/** An import body: collection name to its documents. */
export type MetadataBody = Record<string, unknown[]>;

const withPassphrase = (passphrase: string | undefined): Record<string, string> => (passphrase === undefined || passphrase === '' ? {} : { [PASSPHRASE_HEADER]: passphrase });

/** The export as text (`GET /metadata`), secrets sealed with the passphrase when one is given. */
export async function downloadExport(passphrase?: string): Promise<string> {
  const response = await api.fetch('/metadata', { query: { includeSecrets: passphrase === undefined ? undefined : true }, headers: withPassphrase(passphrase) });
  return response.text();
}

/** Checks an import without writing (`POST /metadata/validate`): Valid, Conflict or Error per document. */
export function validateImport(body: MetadataBody, passphrase?: string): Promise<MetadataResult[]> {
  return api.request<MetadataResult[]>('/metadata/validate', { method: 'POST', body, headers: withPassphrase(passphrase) });
}

/** Imports (`POST /metadata`): Inserted, Updated or Error per document. */
export function runImport(body: MetadataBody, passphrase?: string): Promise<MetadataResult[]> {
  return api.request<MetadataResult[]>('/metadata', { method: 'POST', body, headers: withPassphrase(passphrase) });
}
