/**
 * The management API's OpenAPI document and its reference page (`docs/integrator/api-reference.md`), generated from
 * the route schemas (issue 39), so the reference cannot drift from the code. The routes come from `createApiServer`
 * built with stand-in dependencies (scripts/compile-schemas.ts); each is registered again on a bare Fastify with
 * @fastify/swagger, which turns Fastify's route schemas into OpenAPI 3 (path parameters, the query, the body, the
 * answers). Nothing is compiled there: validation and serialisation are not what is wanted of it.
 *
 * Who may call each route is not in the schemas; what registration tells (public, admin only, signed in) is added as
 * `x-permission` (service/api/server.ts, `RouteAccess`). Routes without a schema for a part are listed with what is
 * known. Written by `npm run docs:generate` (and `npm run build`); test/docs/generated.test.ts fails when stale.
 */
import { fastify } from 'fastify';
import { slug } from 'github-slugger';
import swagger from '@fastify/swagger';
import type { RouteAccess } from '../service/api/server.js';
import { SESSION_COOKIE } from '../service/api/auth/hook.js';
import { registeredApiRoutes } from './compile-schemas.js';

/** A JSON schema as the reference reads it. */
interface Schema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  additionalProperties?: boolean | Schema;
  patternProperties?: Record<string, Schema>;
  default?: unknown;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

interface Operation {
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
  security?: unknown[];
  'x-permission'?: string;
}

export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, Record<string, Operation>>;
  [key: string]: unknown;
}

const PERMISSION: Record<RouteAccess, string> = {
  public: 'none (no sign-in)',
  'sometimes-public': 'signed in, unless the configuration makes it public',
  admin: 'admin',
  'signed-in': "signed in (the resource's own rules may narrow it)",
};

/** The resource a path belongs to: its first segment (`/channels/{id}/audits` is `channels`). */
function resourceOf(url: string): string {
  return url.split('/')[1] ?? '';
}

const openApiPath = (url: string): string => url.replace(/:(\w+)/g, '{$1}');

/** Drops what JSON cannot carry and what only the schema libraries read (TypeBox's symbols, undefined fields). */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The OpenAPI document of every management route. */
export async function apiOpenApi(): Promise<OpenApiDocument> {
  // The icon's empty answer (api/console.ts) is for browsers, not part of the API.
  const routes = (await registeredApiRoutes()).filter((r) => r.method !== 'HEAD' && r.url !== '/favicon.ico');
  const app = fastify({ logger: false });
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Junction management API',
        description: 'The management API of Junction, an OpenHIM-compatible interoperability mediator. Generated from the route schemas by `npm run docs:generate`; the manual explains it in docs/integrator/api.md.',
        version: 'see GET /about',
      },
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'The session cookie `POST /authenticate/local` sets.' },
          basic: { type: 'http', scheme: 'basic', description: "A user's email and password on every request." },
        },
      },
      security: [{ session: [] }, { basic: [] }],
    },
  });
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  for (const route of routes) {
    const schema = { ...plain(route.schema), tags: [resourceOf(route.url)], ...(route.access === 'public' ? { security: [] } : {}) };
    app.route({ method: route.method, url: route.url, schema, handler: async () => null });
  }
  await app.ready();
  const document = plain(app.swagger()) as unknown as OpenApiDocument;
  await app.close();
  for (const route of routes) {
    const operation = document.paths[openApiPath(route.url)]?.[route.method.toLowerCase()];
    if (operation !== undefined) operation['x-permission'] = PERMISSION[route.access];
  }
  return document;
}

// ---- The reference page ----

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n+/g, ' ');
}

function literal(value: unknown): string {
  return `\`${JSON.stringify(value)}\``;
}

/** A schema's type in a few words: `string`, `integer 1–100`, `a \| b`, `array of object`. */
function typeOf(schema: Schema): string {
  if (schema.const !== undefined) return literal(schema.const);
  if (schema.enum !== undefined) return schema.enum.map(literal).join(' or ');
  const union = schema.anyOf ?? schema.oneOf;
  if (union !== undefined) return [...new Set(union.map(typeOf))].join(' or ');
  if (schema.allOf !== undefined) return schema.allOf.map(typeOf).join(' and ');
  const type = [schema.type ?? 'any'].flat().join(' or ');
  if (type === 'array') return `array of ${schema.items === undefined ? 'any' : typeOf(schema.items)}`;
  const limits: string[] = [];
  if (schema.format !== undefined) limits.push(schema.format);
  if (schema.minimum !== undefined || schema.maximum !== undefined) limits.push(`${schema.minimum ?? ''}–${schema.maximum ?? ''}`);
  if (schema.minLength !== undefined && schema.minLength > 0) limits.push(`at least ${schema.minLength} characters`);
  if (schema.maxLength !== undefined) limits.push(`at most ${schema.maxLength} characters`);
  return limits.length === 0 ? type : `${type} (${limits.join(', ')})`;
}

/** The object a schema holds directly or as the items of an array or as an allOf part, to list its fields. */
function fieldsOf(schema: Schema): Schema | null {
  if (schema.properties !== undefined) return schema;
  if (schema.type === 'array' && schema.items !== undefined) return fieldsOf(schema.items);
  return null;
}

interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

/** An object's fields, nested ones by dotted path (`routes[].host`), a few levels deep. */
function fieldRows(schema: Schema, prefix = '', depth = 0): FieldRow[] {
  const object = fieldsOf(schema);
  if (object === null || depth > 3) return [];
  const rows: FieldRow[] = [];
  for (const [name, field] of Object.entries(object.properties ?? {})) {
    const path = `${prefix}${name}`;
    rows.push({ name: path, type: typeOf(field), required: object.required?.includes(name) ?? false, description: field.description ?? '' });
    const nested = fieldsOf(field);
    if (nested !== null) rows.push(...fieldRows(field, `${path}${field.type === 'array' ? '[]' : ''}.`, depth + 1));
  }
  return rows;
}

function fieldTable(rows: readonly FieldRow[]): string[] {
  return ['| Field | Type | Required | Notes |', '|---|---|---|---|', ...rows.map((r) => `| \`${cell(r.name)}\` | ${cell(r.type)} | ${r.required ? 'yes' : ''} | ${cell(r.description)} |`)];
}

const withArticle = (text: string): string => (/^[aeiou]/i.test(text) ? `An ${text}` : `A ${text}`);

/** A body or an answer: its fields as a table, or its type in words when it has none. */
function shape(schema: Schema | undefined): string[] {
  if (schema === undefined) return ['No schema: see the resource\'s page in the manual.'];
  const rows = fieldRows(schema);
  const top = schema.type === 'array' ? `An array of ${fieldsOf(schema) === null ? typeOf(schema.items ?? {}) : 'objects'}` : withArticle(typeOf(schema));
  if (rows.length === 0) return [`${top}.${schema.description === undefined ? '' : ` ${schema.description}`}`];
  return [`${top}${schema.description === undefined ? '' : `: ${schema.description}`}`, '', ...fieldTable(rows)];
}

function firstContent(content: Record<string, { schema?: Schema }> | undefined): { type: string; schema?: Schema } | null {
  const entry = Object.entries(content ?? {})[0];
  return entry === undefined ? null : { type: entry[0], ...(entry[1].schema === undefined ? {} : { schema: entry[1].schema }) };
}

function operationSection(method: string, path: string, operation: Operation): string[] {
  const lines = [`### ${method.toUpperCase()} ${path}`, '', `Permission: ${operation['x-permission'] ?? 'unknown'}.`, ''];
  const parameters = operation.parameters ?? [];
  if (parameters.length > 0) {
    lines.push('| Parameter | In | Type | Required | Notes |', '|---|---|---|---|---|');
    for (const p of parameters) lines.push(`| \`${cell(p.name)}\` | ${p.in} | ${cell(typeOf(p.schema ?? {}))} | ${p.required === true ? 'yes' : ''} | ${cell(p.description ?? p.schema?.description ?? '')} |`);
    lines.push('');
  }
  const body = firstContent(operation.requestBody?.content);
  if (body !== null) lines.push(`Body (\`${body.type}\`):`, '', ...shape(body.schema), '');
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const answer = firstContent(response.content);
    if (status === 'default' || (answer === null && response.description === 'Default Response')) continue;
    lines.push(`Answer ${status}${answer === null ? '' : ` (\`${answer.type}\`)`}:`, '', ...(answer === null ? [response.description ?? 'No body.'] : shape(answer.schema)), '');
  }
  return lines;
}

/** The reference page: every route, grouped by resource, from the OpenAPI document. */
export function apiReferenceMarkdown(document: OpenApiDocument): string {
  const byResource = new Map<string, [string, string, Operation][]>();
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const resource = operation.tags?.[0] ?? resourceOf(path);
      byResource.set(resource, [...(byResource.get(resource) ?? []), [method, path, operation]]);
    }
  }
  const resources = [...byResource.keys()].sort();
  const lines = [
    '# Management API reference',
    '',
    '> Generated from the route schemas by `npm run docs:generate` (also run by `npm run build`): do not edit this page;',
    '> change the schemas in `service/api/schemas/` and regenerate. The same description as OpenAPI 3 is',
    '> [openapi.json](openapi.json), served by Junction at `/openapi.json`.',
    '',
    'How to sign in, the error shape and the conventions every route shares are in [the management API guide](api.md);',
    'each error code is explained in [errors](../errors.md). "Permission" is what the route itself checks: *admin* routes',
    "refuse other users with 403; *signed in* routes serve any user and may answer less (a channel's access list, one's",
    'own account). Every route but the public ones answers 401 without a session cookie or Basic credentials.',
    '',
    '## Resources',
    '',
    ...resources.map((r) => `- [\`/${r}\`](#${slug(r)})`),
    '',
  ];
  for (const resource of resources) {
    lines.push(`## ${resource}`, '');
    const operations = (byResource.get(resource) ?? []).sort(([am, ap], [bm, bp]) => ap.localeCompare(bp) || am.localeCompare(bm));
    for (const [method, path, operation] of operations) lines.push(...operationSection(method, path, operation));
  }
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}
