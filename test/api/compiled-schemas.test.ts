/**
 * Issue 19: the route schemas and the configuration schema compiled at build time (scripts/compile-schemas.ts). The
 * generated code is run here as the bundle runs it, and must decide as ajv and fast-json-stringify decide when they
 * compile the same schemas at run time; code whose schema has changed since it was generated must never be used.
 */
import { createRequire } from 'node:module';
import { setImmediate as turn } from 'node:timers/promises';
import { join, resolve } from 'node:path';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { _ } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileSchemas } from '../../scripts/compile-schemas.js';
import type { CompiledSchemas } from '../../scripts/compile-schemas.js';
import { tableSchemaCode } from '../../service/api/compiled-schemas.js';
import type { CompiledSchemaTable, Serialize } from '../../service/api/compiled-schemas.js';
import * as freeFormKeyword from '../../service/api/free-form-keyword.js';
import { SchemaWarmup } from '../../service/api/schema-warmup.js';
import { createValidatorCompiler, makeAjv } from '../../service/api/validation.js';
import { configAjv } from '../../service/config/validate.js';
import { configSchema } from '../../service/config/schema.js';

const root = resolve(import.meta.dirname, '..', '..');
const nodeRequire = createRequire(import.meta.url);
const freeFormPath = join(root, 'service', 'api', 'free-form-keyword.ts');

/** Runs a generated CommonJS module as the bundle would, its `require` of the free-form check answered by the sources. */
function load(source: string): unknown {
  const module = { exports: {} as unknown };
  const require = (id: string): unknown => (id === freeFormPath ? freeFormKeyword : nodeRequire(id));
  // Generated code, run as esbuild's module wrapper runs it.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const run = new Function('module', 'exports', 'require', source) as (module: unknown, exports: unknown, require: unknown) => void;
  run(module, module.exports, require);
  return module.exports;
}

let compiled: CompiledSchemas;
const sourceOf = (file: string): string => compiled.files.find((f) => f.file === file)?.source ?? '';

/** The compiled code as a table, the way the bundle carries it. */
function table(): CompiledSchemaTable {
  return {
    validators: Object.fromEntries(compiled.validators.map((v) => [v.key, [v.hash, () => load(sourceOf(v.file)) as ValidateFunction]])),
    serializers: Object.fromEntries(compiled.serializers.map((s) => [s.key, [s.hash, () => load(sourceOf(s.file)) as Serialize]])),
  };
}

beforeAll(async () => {
  compiled = await compileSchemas(root);
}, 60_000);

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  items?: Schema;
  minLength?: number;
  minimum?: number;
  minItems?: number;
  format?: string;
}

const FORMATS: Record<string, string> = { email: 'a@example.org', 'date-time': '2026-11-27T00:00:00.000Z', date: '2026-11-27', uri: 'http://example.org/', uuid: '123e4567-e89b-42d3-a456-426614174000', ipv4: '10.0.0.1', ipv6: '::1', hostname: 'example.org' };

/** A value as valid as the schema's types alone can make it, to reach past the first keyword. */
function sample(schema: Schema): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum !== undefined) return schema.enum[0];
  if (schema.anyOf !== undefined) return sample(schema.anyOf[0] ?? {});
  switch ([schema.type].flat()[0]) {
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((key) => [key, sample(schema.properties?.[key] ?? {})]));
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items ?? {}));
    case 'string':
      return schema.format === undefined ? 'x'.repeat(Math.max(schema.minLength ?? 1, 1)) : (FORMATS[schema.format] ?? 'x');
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    default:
      return null;
  }
}

/** Inputs for one schema: its sample, then that sample broken in ways a schema usually refuses. */
function probes(schema: Schema): unknown[] {
  const valid = sample(schema);
  const broken: unknown[] = [{}, [], null, 'text', 42, { unknownField: 1 }, { deep: { a: { b: { c: 1 } } } }];
  if (typeof valid === 'object' && valid !== null && !Array.isArray(valid)) {
    for (const key of Object.keys(schema.properties ?? {})) {
      broken.push({ ...valid, [key]: 'Infinity' }, { ...valid, [key]: { nested: [1, 2] } }, { ...valid, [key]: -1 });
    }
  }
  return [valid, ...broken];
}

const shape = (errors: readonly ErrorObject[] | null | undefined) => (errors ?? []).map((e) => ({ keyword: e.keyword, instancePath: e.instancePath, params: e.params, message: e.message }));

describe('route validators compiled at build time', () => {
  it('cover every route part the API registers, and decide every probe as ajv does at run time', () => {
    expect(compiled.validators.length).toBeGreaterThan(200);
    for (const route of ['GET /me ', 'GET /transactions querystring', 'GET /channels querystring', 'POST /channels body']) {
      expect(compiled.validators.map((v) => v.key).some((key) => key.startsWith(route))).toBe(true);
    }
    const ajv = { strict: makeAjv(false), coercing: makeAjv(true) };
    let refused = 0;
    for (const entry of compiled.validators) {
      const atBuild = load(sourceOf(entry.file)) as ValidateFunction;
      const atRun = (entry.route.httpPart === 'body' ? ajv.strict : ajv.coercing).compile(entry.schema);
      for (const probe of probes(entry.schema)) {
        const [a, b] = [structuredClone(probe), structuredClone(probe)];
        const verdict = { valid: atBuild(a), errors: shape(atBuild.errors), data: a };
        expect(verdict, `${entry.key} with ${JSON.stringify(probe)}`).toEqual({ valid: atRun(b), errors: shape(atRun.errors), data: b });
        if (!verdict.valid) refused++;
      }
    }
    // The probes reach refusals, not only acceptances.
    expect(refused).toBeGreaterThan(compiled.validators.length);
  });

  it('coerce and refuse the transaction list query as the API does', () => {
    const entry = compiled.validators.find((v) => v.key === 'GET /transactions querystring');
    const validate = load(sourceOf(entry?.file ?? '')) as ValidateFunction;
    const query: Record<string, unknown> = { filterLimit: '20', filterPage: '0' };
    expect(validate(query)).toBe(true);
    expect(query).toMatchObject({ filterLimit: 20, filterPage: 0 });
    expect(validate({ filterLimit: 'twenty' })).toBe(false);
    expect(shape(validate.errors)).toContainEqual({ keyword: 'type', instancePath: '/filterLimit', params: { type: 'integer' }, message: 'must be integer' });
  });

  it('keep the free-form rules, naming the offending key as at run time', () => {
    const deep: Record<string, unknown> = {};
    let level = deep;
    for (let i = 0; i < 40; i++) level = (level[`k${i}`] = {});
    /** The body's sample with every free-form field (through `properties`) too deep. */
    const tooDeep = (schema: Schema & { freeForm?: unknown }): unknown => {
      if (schema.freeForm !== undefined) return deep;
      if (schema.properties === undefined) return sample(schema);
      const value = (sample(schema) ?? {}) as Record<string, unknown>;
      for (const [key, field] of Object.entries(schema.properties)) if (JSON.stringify(field).includes('"freeForm"')) value[key] = tooDeep(field);
      return value;
    };
    const withFreeForm = compiled.validators.filter((v) => v.route.httpPart === 'body' && JSON.stringify(v.schema).includes('"freeForm"'));
    expect(withFreeForm.length).toBeGreaterThan(0);
    const ajv = makeAjv(false);
    let refusedByFreeForm = 0;
    for (const entry of withFreeForm) {
      const atBuild = load(sourceOf(entry.file)) as ValidateFunction;
      const atRun = ajv.compile(entry.schema);
      const body = tooDeep(entry.schema);
      expect(atBuild(structuredClone(body))).toBe(atRun(structuredClone(body)));
      expect(shape(atBuild.errors)).toEqual(shape(atRun.errors));
      if ((atBuild.errors ?? []).some((e) => e.keyword === 'freeForm' && e.instancePath.includes('/k0/k1'))) refusedByFreeForm++;
    }
    expect(refusedByFreeForm).toBeGreaterThan(0);
  });
});

describe('response serializers compiled at build time', () => {
  it('write what fast-json-stringify writes at run time, for both shapes of the transaction list', () => {
    const entry = compiled.serializers.find((s) => s.key.startsWith('GET /transactions 200'));
    expect(entry).toBeDefined();
    if (entry === undefined) return;
    const atBuild = load(sourceOf(entry.file)) as Serialize;
    const atRun = SerializerSelector()(entry.settings.externalSchemas, entry.settings.options as never)({ ...entry.route, schema: entry.schema } as never) as Serialize;
    const view = (entry.schema as { then: { items: Schema } }).then.items;
    const transaction = { ...(sample(view) as object), status: 'Successful', notInTheSchema: 'dropped' };
    for (const answer of [[transaction, transaction], { count: 2, transactions: [transaction] }, []]) {
      expect(atBuild(answer)).toBe(atRun(answer));
    }
    expect(atBuild([transaction])).not.toContain('notInTheSchema');
  });

  it('cover every answer the API registers a schema for', () => {
    expect(compiled.serializers.length).toBeGreaterThan(100);
    for (const entry of compiled.serializers) expect(typeof load(sourceOf(entry.file)), entry.key).toBe('function');
  });
});

describe('compiled code and a changed schema', () => {
  const compileFor = (compiler: FastifySchemaCompiler<unknown>, schema: object) => compiler({ schema: schema, method: 'GET', url: '/transactions', httpPart: 'querystring' }) as (data: unknown) => boolean;

  it('is used while the schema is the one it was compiled from, and never once the schema differs', () => {
    const entry = compiled.validators.find((v) => v.key === 'GET /transactions querystring');
    if (entry === undefined) throw new Error('no compiled validator for the transaction list');
    const loads: string[] = [];
    const stale: string[] = [];
    const counted: CompiledSchemaTable = { validators: { [entry.key]: [entry.hash, () => (loads.push(entry.key), load(sourceOf(entry.file)) as ValidateFunction)] }, serializers: {} };
    const code = tableSchemaCode(counted, { stale: (key) => stale.push(key) });

    const same = compileFor(createValidatorCompiler(undefined, code), entry.schema);
    expect(same({ filterLimit: '100' })).toBe(true);
    expect(loads).toEqual([entry.key]);

    // The schema as a later edit of the sources would make it, without a rebuild: a lower page limit.
    const changed = structuredClone(entry.schema) as { properties: Record<string, { maximum?: number }> };
    const limit = changed.properties.filterLimit;
    if (limit === undefined) throw new Error('the list query has no filterLimit');
    limit.maximum = 50;
    const edited = compileFor(createValidatorCompiler(undefined, code), changed);
    expect(edited({ filterLimit: '100' })).toBe(false);
    expect(edited({ filterLimit: '50' })).toBe(true);
    expect(stale).toEqual([entry.key]);
    expect(loads).toEqual([entry.key]);
  });

  it('is read after start for the routes a console opens with, and leaves the warm-up nothing to compile', async () => {
    const entries = ['GET /transactions querystring', 'GET /channels querystring'].map((key) => compiled.validators.find((v) => v.key === key));
    const loads: string[] = [];
    const counted: CompiledSchemaTable = {
      validators: Object.fromEntries(entries.flatMap((e) => (e === undefined ? [] : [[e.key, [e.hash, () => (loads.push(e.key), load(sourceOf(e.file)) as ValidateFunction)] as const]]))),
      serializers: {},
    };
    const warmup = new SchemaWarmup();
    const compiler = createValidatorCompiler(warmup, tableSchemaCode(counted));
    const validators = entries.map((e) => (e === undefined ? undefined : (compiler({ schema: e.schema, method: 'GET', url: e.route.url, httpPart: 'querystring' }) as (data: unknown) => boolean)));
    expect(loads).toEqual([]);
    warmup.start();
    for (let i = 0; i < 5; i++) await turn();
    expect(loads).toEqual(['GET /transactions querystring']);
    // /channels is read on its first request, and the list's code is not read twice.
    expect(validators[1]?.({})).toBe(true);
    expect(validators[0]?.({ filterLimit: '5' })).toBe(true);
    expect(loads).toEqual(['GET /transactions querystring', 'GET /channels querystring']);
  });

  it('is given a new hash when only the compiler settings change', () => {
    const entry = compiled.validators.find((v) => v.key === 'GET /transactions querystring');
    if (entry === undefined) throw new Error('no compiled validator for the transaction list');
    const stale: string[] = [];
    const code = tableSchemaCode(table(), { stale: (key) => stale.push(key) });
    expect(code.validator(entry.route, entry.schema, `${entry.compiler} changed`)?.()).toBeUndefined();
    expect(code.validator(entry.route, entry.schema, entry.compiler)?.()).toBeTypeOf('function');
    expect(stale).toEqual([entry.key]);
  });
});

describe('the configuration validator compiled at build time', () => {
  it('decides as the validator compiled at start did', () => {
    const atBuild = load(sourceOf('config.cjs')) as ValidateFunction;
    const atRun = configAjv().compile(configSchema);
    const configs: unknown[] = [{}, { api: { port: 'eighty' } }, { api: { port: 8080, unknownKey: 1 } }, { storage: { engine: 'oracle' } }, [], { logging: { level: 'loud' }, router: { httpPort: -1 } }];
    for (const config of configs) {
      expect(atBuild(structuredClone(config))).toBe(atRun(structuredClone(config)));
      expect(shape(atBuild.errors)).toEqual(shape(atRun.errors));
    }
    expect(atBuild({ api: { port: 'eighty' } })).toBe(false);
  });

  it('keeps the `unavailable` keyword: only the default is accepted', () => {
    const schema = { type: 'object', properties: { later: { type: 'array', items: { type: 'string' }, default: ['a'], unavailable: 'coming later' } } };
    const ajv = configAjv(_`require("node:util").isDeepStrictEqual`);
    const atBuild = load(standaloneCode.default(ajv, ajv.compile(schema))) as ValidateFunction;
    const atRun = configAjv().compile(schema);
    for (const validate of [atBuild, atRun]) {
      expect(validate({ later: ['a'] })).toBe(true);
      expect(validate({})).toBe(true);
      expect(validate({ later: ['b'] })).toBe(false);
      expect(validate.errors?.[0]?.keyword).toBe('unavailable');
    }
  });
});
