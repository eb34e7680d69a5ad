/**
 * Configuration export and import, admins only (OpenHIM's import-export permission, which its admin role holds):
 * `GET /metadata` (`?includeSecrets=true` with a passphrase in the x-junction-passphrase header seals secrets into
 * it), `POST /metadata/validate` and `POST /metadata` (201 with one result per document, OpenHIM's shapes). The
 * passphrase travels in a header, never in the URL, where access logs and browser history would keep it; an import
 * body is OpenHIM's map of collections, which has no room for it.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { AppError } from '../../errors.js';
import { PASSPHRASE_HEADER } from '../../contracts/metadata.js';
import { castRegistrationValues } from '../../domain/channels/mediator-registration.js';
import type { RecordModel } from '../../domain/operations/metadata.js';
import { exportMetadata } from '../../metadata/exporter.js';
import { importMetadata } from '../../metadata/importer.js';
import type { BodyCheck, MetadataServices } from '../../metadata/services.js';
import { checkPassphrase } from '../../metadata/secrets.js';
import { requireAdmin } from '../guards.js';
import { createValidatorCompiler, describeValidationErrors } from '../validation.js';
import { NoQuery } from '../schemas/common.js';
import { ChannelCreateBody } from '../schemas/channels.js';
import { ClientCreateBody } from '../schemas/clients.js';
import { ContactGroupCreateBody } from '../schemas/contact-groups.js';
import { MEDIATOR_READ_ONLY_FIELDS, MediatorRegistrationBody } from '../schemas/mediators.js';
import { UserCreateBody } from '../schemas/users.js';
import { MetadataExportQuery, MetadataExportSchema, MetadataImportBody, MetadataResultSchema } from '../schemas/metadata.js';
import { Type } from 'typebox';

export type MetadataRoutesDeps = MetadataServices;

const WORK = 'export or import the configuration';

/** The body schema each collection's documents must pass: the one `POST` of that resource uses. */
const SCHEMAS: Readonly<Record<RecordModel, TSchema>> = {
  Channels: ChannelCreateBody,
  Clients: ClientCreateBody,
  Mediators: MediatorRegistrationBody,
  Users: UserCreateBody,
  ContactGroups: ContactGroupCreateBody,
};

/** Checks documents exactly as the API checks bodies (same compiler: strict types, defaults, unknown fields refused). */
function bodyCheck(): BodyCheck {
  const compile = createValidatorCompiler();
  const validators = new Map(Object.entries(SCHEMAS).map(([model, schema]) => [model, compile({ schema, method: 'POST', url: '/metadata', httpPart: 'body' })]));
  return (model, doc) => {
    const body = structuredClone(doc) as Record<string, unknown>;
    // As POST /mediators does: OpenHIM casts "4000" and "true" in routes, and registration files depend on it.
    if (model === 'Mediators') castRegistrationValues(body);
    const validate = validators.get(model) as (data: unknown) => boolean & { errors?: unknown };
    if (validate(body) !== true) {
      const errors = (validate as unknown as { errors: Parameters<typeof describeValidationErrors>[0] | null }).errors ?? [];
      return { body, problems: describeValidationErrors(errors, 'body') };
    }
    if (model === 'Mediators') {
      for (const [key, value] of Object.entries(body)) if (value === null || MEDIATOR_READ_ONLY_FIELDS.includes(key)) delete body[key];
    }
    return { body, problems: [] };
  };
}

function passphraseOf(request: FastifyRequest): string | undefined {
  const value = request.headers[PASSPHRASE_HEADER];
  return Array.isArray(value) ? value[0] : value;
}

export function metadataRoutes(deps: MetadataRoutesDeps): FastifyPluginAsyncTypebox {
  const check = bodyCheck();

  return async (app) => {
    app.get('/metadata', { schema: { querystring: MetadataExportQuery, response: { 200: MetadataExportSchema } } }, async (request) => {
      const user = requireAdmin(request, WORK);
      const given = passphraseOf(request);
      const withSecrets = request.query.includeSecrets === true;
      if (!withSecrets && given !== undefined) throw new AppError('BAD_REQUEST', `A passphrase was given but includeSecrets is not true: add ?includeSecrets=true to include secrets, or leave out the ${PASSPHRASE_HEADER} header`);
      const passphrase = withSecrets ? checkPassphrase(given, 'An export with secrets') : undefined;
      const exported = await exportMetadata(deps, passphrase);
      request.log.info({ by: user.email, includeSecrets: withSecrets }, 'configuration exported');
      return [exported];
    });

    const results = { 201: Type.Array(MetadataResultSchema) };
    app.post('/metadata/validate', { schema: { querystring: NoQuery, body: MetadataImportBody, response: results } }, async (request, reply) => {
      const actor = requireAdmin(request, WORK);
      const passphrase = passphraseOf(request);
      const answer = await importMetadata(deps, request.body, { dryRun: true, actor, check, logger: request.log, ...(passphrase === undefined ? {} : { passphrase }) });
      return reply.code(201).send(answer);
    });

    app.post('/metadata', { schema: { querystring: NoQuery, body: MetadataImportBody, response: results } }, async (request, reply) => {
      const actor = requireAdmin(request, WORK);
      const passphrase = passphraseOf(request);
      const answer = await importMetadata(deps, request.body, { dryRun: false, actor, check, logger: request.log, ...(passphrase === undefined ? {} : { passphrase }) });
      return reply.code(201).send(answer);
    });
  };
}
