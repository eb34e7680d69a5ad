/** Typed calls of the keystore routes and `POST /certificates` (admins only). */
import type { CaUploadAnswer, CertificateGenerateInput, GeneratedCertificate, KeystoreUploadAnswer, KeystoreValidity, ServerCertificateInfo, TrustedCaInfo } from '../../../service/contracts/keystore';
import { api, seg } from './client';

/** The certificate being served (`GET /keystore/cert`). */
export function getServerCertificate(signal?: AbortSignal): Promise<ServerCertificateInfo> {
  return api.get<ServerCertificateInfo>('/keystore/cert', undefined, signal);
}

/** Stages a certificate; applied once it matches the key (`POST /keystore/cert`). */
export function uploadCertificate(cert: string): Promise<KeystoreUploadAnswer> {
  return api.post<KeystoreUploadAnswer>('/keystore/cert', { cert });
}

/** Stages a private key, with its passphrase when it has one (`POST /keystore/key`). */
export function uploadKey(key: string, passphrase?: string): Promise<KeystoreUploadAnswer> {
  return api.post<KeystoreUploadAnswer>('/keystore/key', passphrase === undefined || passphrase === '' ? { key } : { key, passphrase });
}

/** Stages the key's passphrase (`POST /keystore/passphrase`). */
export function uploadPassphrase(passphrase: string): Promise<KeystoreUploadAnswer> {
  return api.post<KeystoreUploadAnswer>('/keystore/passphrase', { passphrase });
}

/** Whether the staged or served pair matches (`GET /keystore/validity`). */
export function getValidity(signal?: AbortSignal): Promise<KeystoreValidity> {
  return api.get<KeystoreValidity>('/keystore/validity', undefined, signal);
}

/** The trusted CAs (`GET /keystore/ca`). */
export function listTrustedCAs(signal?: AbortSignal): Promise<TrustedCaInfo[]> {
  return api.get<TrustedCaInfo[]>('/keystore/ca', undefined, signal);
}

/** Trusts a certificate or a chain, all or nothing (`POST /keystore/ca/cert`). */
export function addTrustedCAs(cert: string): Promise<CaUploadAnswer> {
  return api.post<CaUploadAnswer>('/keystore/ca/cert', { cert });
}

/** Stops trusting one (`DELETE /keystore/ca/:certId`). */
export async function removeTrustedCA(id: string): Promise<void> {
  await api.delete(`/keystore/ca/${seg(id)}`);
}

/** What `POST /certificates` takes. */
export type GenerateRequest = CertificateGenerateInput;

/** Generates a certificate; its key is in this answer only. */
export function generateCertificate(request: GenerateRequest): Promise<GeneratedCertificate> {
  return api.post<GeneratedCertificate>('/certificates', request);
}
