/**
 * The keystore (`/keystore/*`, OpenHIM's routes and shapes) and `POST /certificates`, admins only. Uploads are
 * staged until a matching pair exists, then served at once on every listener (keystore/keystore.ts); the private
 * key and passphrase are never in an answer or a log line, except the key of a certificate generated here, which is
 * returned once and not kept (unless it becomes the server's own).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import type { ClientAccounts } from '../../accounts/clients.js';
import type { Keystore } from '../../keystore/keystore.js';
import { certificateInfo, parseCertificate } from '../../keystore/certificate-info.js';
import type { GeneratedCertificate } from '../../contracts/keystore.js';
import { requireAdmin } from '../guards.js';
import { NoQuery } from '../schemas/common.js';
import {
  CaParams,
  CaUploadAnswerSchema,
  CaUploadBody,
  CertUploadBody,
  GenerateCertificateBody,
  GeneratedCertificateSchema,
  KeyUploadBody,
  PassphraseBody,
  ServerCertificateSchema,
  TrustedCaSchema,
  UploadAnswerSchema,
  ValiditySchema,
} from '../schemas/keystore.js';

export interface KeystoreRoutesDeps {
  keystore: Keystore;
  clients: ClientAccounts;
}

const WORK = 'view or change certificates';

export function keystoreRoutes(deps: KeystoreRoutesDeps): FastifyPluginAsyncTypebox {
  const { keystore, clients } = deps;

  return async (app) => {
    app.get('/keystore/cert', { schema: { querystring: NoQuery, response: { 200: ServerCertificateSchema } } }, (request) => {
      requireAdmin(request, WORK);
      return keystore.serverInfo();
    });

    // 201 with {applied, warning}: a half of a pair is accepted and staged (OpenHIM's console uploads the certificate
    // and the key one after the other), so a mismatch is not an error of the request, only a reason nothing changed yet.
    app.post('/keystore/cert', { schema: { querystring: NoQuery, body: CertUploadBody, response: { 201: UploadAnswerSchema } } }, async (request, reply) => {
      const user = requireAdmin(request, WORK);
      const answer = await keystore.uploadCert(request.body.cert, request.body.passphrase);
      request.log.info({ by: user.email, applied: answer.applied }, 'server certificate uploaded');
      return reply.code(201).send(answer);
    });

    app.post('/keystore/key', { schema: { querystring: NoQuery, body: KeyUploadBody, response: { 201: UploadAnswerSchema } } }, async (request, reply) => {
      const user = requireAdmin(request, WORK);
      const answer = await keystore.uploadKey(request.body.key, request.body.passphrase);
      request.log.info({ by: user.email, applied: answer.applied }, 'server key uploaded');
      return reply.code(201).send(answer);
    });

    app.post('/keystore/passphrase', { schema: { querystring: NoQuery, body: PassphraseBody, response: { 201: UploadAnswerSchema } } }, async (request, reply) => {
      const user = requireAdmin(request, WORK);
      const answer = await keystore.uploadPassphrase(request.body.passphrase);
      request.log.info({ by: user.email, applied: answer.applied }, 'server key passphrase uploaded');
      return reply.code(201).send(answer);
    });

    app.get('/keystore/validity', { schema: { querystring: NoQuery, response: { 200: ValiditySchema } } }, (request) => {
      requireAdmin(request, WORK);
      return keystore.validity();
    });

    app.get('/keystore/ca', { schema: { querystring: NoQuery, response: { 200: Type.Array(TrustedCaSchema) } } }, (request) => {
      requireAdmin(request, WORK);
      return keystore.listCAs();
    });

    app.get('/keystore/ca/:certId', { schema: { params: CaParams, querystring: NoQuery, response: { 200: TrustedCaSchema } } }, (request) => {
      requireAdmin(request, WORK);
      return keystore.getCA(request.params.certId);
    });

    app.post('/keystore/ca/cert', { schema: { querystring: NoQuery, body: CaUploadBody, response: { 201: CaUploadAnswerSchema } } }, async (request, reply) => {
      const user = requireAdmin(request, WORK);
      const answer = await keystore.addCAs(request.body.cert);
      request.log.info({ by: user.email, added: answer.added.map((c) => c.fingerprint256), skipped: answer.skipped.length }, 'trusted certificates added');
      return reply.code(201).send(answer);
    });

    app.delete('/keystore/ca/:certId', { schema: { params: CaParams, querystring: NoQuery, response: { 200: TrustedCaSchema } } }, async (request) => {
      const user = requireAdmin(request, WORK);
      const removed = await keystore.removeCA(request.params.certId);
      request.log.info({ by: user.email, fingerprint256: removed.fingerprint256 }, 'trusted certificate removed');
      return removed;
    });

    app.post('/certificates', { schema: { querystring: NoQuery, body: GenerateCertificateBody, response: { 201: GeneratedCertificateSchema } } }, async (request, reply) => {
      const user = requireAdmin(request, WORK);
      const { applyToServer, clientID, ...wanted } = request.body;
      if (applyToServer === true && wanted.type !== 'server') throw new AppError('BAD_REQUEST', 'applyToServer is for a server certificate: send type "server"');
      if (clientID !== undefined && wanted.type !== 'client') throw new AppError('BAD_REQUEST', 'clientID is for a client certificate: send type "client"');
      // Found before anything is made, so an unknown client changes nothing.
      const client = clientID === undefined ? undefined : await clients.getByClientID(clientID);
      // node-forge is loaded on the first request that needs it, not on every start (issue 19).
      const { generateCertificate } = await import('../../keystore/generate.js');
      const made = generateCertificate(wanted);
      const info = certificateInfo(parseCertificate(made.certificate));
      const answer: GeneratedCertificate = { ...made, info };
      if (applyToServer === true) {
        await keystore.applyPair(made.certificate, made.key);
        answer.applied = true;
      }
      if (wanted.type === 'client') {
        // As OpenHIM does, a generated client certificate is trusted, so it verifies on mutual TLS.
        await keystore.trust(made.certificate);
        if (client !== undefined) {
          await clients.update(client._id, { certificate: made.certificate });
          answer.clientID = client.clientID;
        }
      }
      request.log.info({ by: user.email, type: wanted.type, commonName: info.commonName, fingerprint256: info.fingerprint256, applied: answer.applied === true, clientID: answer.clientID }, 'certificate generated');
      return reply.code(201).send(answer);
    });
  };
}
