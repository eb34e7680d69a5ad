/**
 * Route validators and response serializers compiled at build time (issue 19): `scripts/compile-schemas.ts` generates
 * them from the routes' own schemas at every `npm run build:service`, and the bundle carries them in place of
 * `compiled-schema-table.ts`. A route then loads its compiled code on first use instead of running ajv or
 * fast-json-stringify on the main thread. Each entry names the hash of the schema it came from; a schema that no
 * longer matches is compiled at run time as before, so stale code is never used.
 */
import type { ValidateFunction } from 'ajv';
import { schemaHash } from '../domain/util/schema-hash.js';

/** A response serializer as fast-json-stringify builds it. */
export type Serialize = (doc: unknown) => string;

/** One compiled function: the hash of the schema and settings it came from, and how to load it. */
export type CompiledEntry<F> = readonly [hash: string, load: () => F];

/** What the bundle carries, keyed by route and part (`validatorKey`, `serializerKey`). */
export interface CompiledSchemaTable {
  validators: Readonly<Record<string, CompiledEntry<ValidateFunction>>>;
  serializers: Readonly<Record<string, CompiledEntry<Serialize>>>;
}

/** A route part as Fastify names it to a validator compiler. */
export interface ValidatorRoute {
  method: string;
  url: string;
  httpPart?: string | undefined;
}

/** A route's answer as Fastify names it to a serializer compiler. */
export interface SerializerRoute {
  method: string;
  url: string;
  httpStatus?: string | undefined;
  contentType?: string | undefined;
}

/**
 * Where route schemas' compiled code comes from. Asked once per route part at registration (it must be cheap); the
 * loader it returns runs on the route's first use and yields undefined when the schema is not the one compiled.
 */
export interface SchemaCode {
  validator(route: ValidatorRoute, schema: object, compiler: string): (() => ValidateFunction | undefined) | undefined;
  serializer(route: SerializerRoute, schema: object, compiler: string, settings: SerializerSettings): (() => Serialize | undefined) | undefined;
}

/** What fast-json-stringify was given besides the schema (Fastify's shared schemas and serializer options). */
export interface SerializerSettings {
  externalSchemas: unknown;
  options: unknown;
}

/** The table key of a route part's validator. */
export function validatorKey(route: ValidatorRoute): string {
  return `${route.method} ${route.url} ${route.httpPart ?? ''}`;
}

/** The table key of a route answer's serializer. */
export function serializerKey(route: SerializerRoute): string {
  return `${route.method} ${route.url} ${route.httpStatus ?? ''} ${route.contentType ?? ''}`;
}

/** What a compiled table reports: code whose schema changed since the build, a route part the build did not see. */
export interface TableReports {
  stale?: (key: string) => void;
  missing?: (key: string) => void;
}

/** Schema code from a compiled table. */
export function tableSchemaCode(table: CompiledSchemaTable, reports: TableReports = {}): SchemaCode {
  function loader<F>(entry: CompiledEntry<F> | undefined, key: string, schema: object, compiler: string): (() => F | undefined) | undefined {
    if (entry === undefined) {
      reports.missing?.(key);
      return undefined;
    }
    return () => {
      // Hashed on first use, not at registration: a start hashes nothing (about 250 route parts).
      if (entry[0] === schemaHash(compiler, schema)) return entry[1]();
      reports.stale?.(key);
      return undefined;
    };
  }
  return {
    validator: (route, schema, compiler) => {
      const key = validatorKey(route);
      return loader(table.validators[key], key, schema, compiler);
    },
    serializer: (route, schema, compiler) => {
      const key = serializerKey(route);
      return loader(table.serializers[key], key, schema, compiler);
    },
  };
}
