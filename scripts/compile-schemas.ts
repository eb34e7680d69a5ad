/**
 * Compiles the management API's route schemas and the configuration schema to code at build time (issue 19), so a
 * start of the bundle runs neither ajv nor fast-json-stringify's compiler on the main thread. Run by
 * `scripts/bundle-service.ts` at every `npm run build:service`, from the tsc output of the same sources the bundle is
 * made from: the routes are registered on an API server built with stand-in dependencies (registration only records
 * schemas; nothing is called), every schema its compilers are given is recorded, then compiled with ajv's standalone
 * code generation (request validators, the configuration) and fast-json-stringify's standalone mode (response
 * serializers, with the validators of their unions and if/then/else inlined).
 *
 * Output, in `dist/schemas/`: one CommonJS file per compiled function, and `routes.js` and `config.js`, which the
 * bundle takes in place of `service/api/compiled-schema-table.ts` and `service/config/compiled-validator.ts`. The
 * configuration's validator is bundled (every start needs it). The routes' files are bundled one by one beside the
 * bundle (`bundle/schemas/`, scripts/bundle-service.ts) and each is read on its route's first use: in the bundle they
 * were 1.4 MB that every start parsed (about 20 ms of CPU) for routes a start mostly never calls.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { transform } from 'esbuild';
import { _ } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import type { ValidateFunction } from 'ajv';
import { pino } from 'pino';
import { createApiServer, routesOf } from '../service/api/server.js';
import type { ApiDeps, RegisteredRoute } from '../service/api/server.js';
import { serializerKey, validatorKey } from '../service/api/compiled-schemas.js';
import type { SchemaCode, SerializerRoute, SerializerSettings, ValidatorRoute } from '../service/api/compiled-schemas.js';
import { makeAjv } from '../service/api/validation.js';
import { CONFIG_COMPILER, configAjv } from '../service/config/validate.js';
import { configSchema } from '../service/config/schema.js';
import { schemaHash } from '../service/domain/util/schema-hash.js';

export interface Recorded<Route> {
  key: string;
  route: Route;
  schema: object;
  compiler: string;
}

/** A SchemaCode that compiles nothing and records what each compiler was given. */
class SchemaRecorder implements SchemaCode {
  readonly validators: Recorded<ValidatorRoute>[] = [];
  readonly serializers: (Recorded<SerializerRoute> & { settings: SerializerSettings })[] = [];

  validator(route: ValidatorRoute, schema: object, compiler: string): undefined {
    this.validators.push({ key: validatorKey(route), route, schema, compiler });
    return undefined;
  }

  serializer(route: SerializerRoute, schema: object, compiler: string, settings: SerializerSettings): undefined {
    this.serializers.push({ key: serializerKey(route), route, schema, compiler, settings });
    return undefined;
  }
}

/**
 * Dependencies that are never called: route registration only keeps them for the handlers. Any property is another
 * stand-in, and none is a promise (`then` is absent), so awaiting one does not hang.
 */
function standIn(): ApiDeps {
  const make = (): unknown =>
    new Proxy(function standInDependency() {}, {
      get: (_target, key) => (key === 'then' ? undefined : make()),
      apply: () => make(),
      construct: () => make() as object,
    });
  return make() as ApiDeps;
}

/** The manual's routes are registered too (their query and path schemas are compiled like the API's); nothing is read from this folder while registering. */
const MANUAL_STAND_IN = 'docs';

/** Every schema the API's compilers are given, as `createApiServer` registers its routes. */
export async function recordRouteSchemas(): Promise<SchemaRecorder> {
  const recorder = new SchemaRecorder();
  const app = await createApiServer({ logger: pino({ level: 'silent' }), protocol: 'http', bodyLimitBytes: 1, idleTimeoutMs: 1, consoleDir: null, docsDir: MANUAL_STAND_IN, schemaCode: recorder }, standIn());
  await app.ready();
  await app.close();
  return recorder;
}

/** The routes `createApiServer` registers, with their schemas, from a server built with stand-ins (the API reference's source). */
export async function registeredApiRoutes(): Promise<readonly RegisteredRoute[]> {
  const app = await createApiServer({ logger: pino({ level: 'silent' }), protocol: 'http', bodyLimitBytes: 1, idleTimeoutMs: 1, consoleDir: null, docsDir: null, schemaCode: new SchemaRecorder() }, standIn());
  await app.ready();
  const routes = routesOf(app);
  await app.close();
  return routes;
}

/** One generated module: its file name and its source. */
interface Generated {
  file: string;
  source: string;
}

/** One compiled route part: its table key, the schema and compiler it came from, and its file. */
export interface CompiledEntry<Route> extends Recorded<Route> {
  hash: string;
  file: string;
}

/** The generated modules, and what each route part was compiled to. */
export interface CompiledSchemas {
  files: Generated[];
  validators: CompiledEntry<ValidatorRoute>[];
  serializers: (CompiledEntry<SerializerRoute> & { settings: SerializerSettings })[];
}

const jsString = (text: string): string => JSON.stringify(text);

/** The folder beside the bundle that holds the routes' compiled files, each bundled on its own. */
export const ROUTE_CODE_DIR = 'schemas';

/** True for a generated file of one route part's code (not the tables, not the configuration's validator). */
export const isRouteCode = (file: string): boolean => /^[vs]\d+\.cjs$/.test(file);

/**
 * Compiles every recorded route schema and the configuration schema to code; `root` is the checkout, from which the
 * generated code `require`s the modules it calls (resolved by esbuild when bundling).
 */
export async function compileSchemas(root: string): Promise<CompiledSchemas> {
  const recorder = await recordRouteSchemas();
  const files: Generated[] = [];
  // The same schema under the same compiler is one file (GET and HEAD, routes sharing a query).
  const byHash = new Map<string, string>();
  const entries = { validators: [] as string[], serializers: [] as string[] };
  const compiled: Pick<CompiledSchemas, 'validators' | 'serializers'> = { validators: [], serializers: [] };

  const freeFormSource = _`require(${join(root, 'service', 'api', 'free-form-keyword.ts')}).freeFormErrors`;
  const ajvs = { strict: makeAjv(false, { freeFormSource }), coercing: makeAjv(true, { freeFormSource }) };
  for (const recorded of recorder.validators) {
    const { key, route, schema, compiler } = recorded;
    const hash = schemaHash(compiler, schema);
    let file = byHash.get(hash);
    if (file === undefined) {
      const ajv = route.httpPart === 'body' ? ajvs.strict : ajvs.coercing;
      file = `v${byHash.size}.cjs`;
      files.push({ file, source: standaloneCode.default(ajv, ajv.compile(schema)) });
      byHash.set(hash, file);
    }
    entries.validators.push(`  ${jsString(key)}: [${jsString(hash)}, () => load(${jsString(`./${ROUTE_CODE_DIR}/${file}`)})],`);
    compiled.validators.push({ ...recorded, hash, file });
  }

  const build = SerializerSelector();
  for (const recorded of recorder.serializers) {
    const { key, route, schema, compiler, settings } = recorded;
    const hash = schemaHash(compiler, schema);
    let file = byHash.get(hash);
    if (file === undefined) {
      const options = { ...(settings.options as object), mode: 'standalone' as const, inlineValidators: true };
      // In standalone mode fast-json-stringify returns the module's source (its types say a serializer).
      const source = build(settings.externalSchemas, options)({ ...route, schema } as Parameters<ReturnType<typeof build>>[0]) as unknown as string;
      file = `s${byHash.size}.cjs`;
      files.push({ file, source });
      byHash.set(hash, file);
    }
    entries.serializers.push(`  ${jsString(key)}: [${jsString(hash)}, () => load(${jsString(`./${ROUTE_CODE_DIR}/${file}`)})],`);
    compiled.serializers.push({ ...recorded, hash, file });
  }

  files.push({
    file: 'routes.js',
    source: [
      '// Generated by scripts/compile-schemas.ts (npm run build:service): the route schemas compiled at build time.',
      "import { createRequire } from 'node:module';",
      '// Relative to the bundle this module becomes part of: its route files are beside it (scripts/bundle-service.ts).',
      'const load = createRequire(import.meta.url);',
      'const validators = {',
      ...entries.validators,
      '};',
      'const serializers = {',
      ...entries.serializers,
      '};',
      'export const compiledSchemaTable = { validators, serializers };',
      '',
    ].join('\n'),
  });

  const config = configAjv(_`require("node:util").isDeepStrictEqual`);
  const configValidator: ValidateFunction = config.compile(configSchema);
  files.push({ file: 'config.cjs', source: standaloneCode.default(config, configValidator) });
  files.push({
    file: 'config.js',
    source: [
      '// Generated by scripts/compile-schemas.ts (npm run build:service): the configuration validator compiled at build time.',
      `export const compiledConfigValidator = [${jsString(schemaHash(CONFIG_COMPILER, configSchema))}, () => require('./config.cjs')];`,
      '',
    ].join('\n'),
  });
  return { files, ...compiled };
}

/**
 * Writes the generated modules to `dir` (emptied first), minified: their names never reach a log or a stack a reader
 * needs, and the bundle, which keeps its own names, is parsed at every start (a third smaller here).
 */
export async function writeCompiledSchemas(root: string, dir: string): Promise<{ files: string[]; bytes: number; validators: number; serializers: number }> {
  const compiled = await compileSchemas(root);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  let bytes = 0;
  for (const { file, source } of compiled.files) {
    const { code } = await transform(source, { loader: 'js', minify: true, target: 'node20.19' });
    bytes += Buffer.byteLength(code);
    await writeFile(join(dir, file), code);
  }
  return { files: compiled.files.map((f) => f.file), bytes, validators: compiled.validators.length, serializers: compiled.serializers.length };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const root = resolve(import.meta.dirname, '..', '..');
  const written = await writeCompiledSchemas(root, join(root, 'dist', 'schemas'));
  process.stdout.write(`compiled schemas: ${written.validators} validators, ${written.serializers} serializers, ${written.files.length} files, ${(written.bytes / 2 ** 10).toFixed(0)} KB\n`);
}
