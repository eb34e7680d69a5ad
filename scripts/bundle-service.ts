/**
 * The production service bundle (`npm run build:service`, after tsc): esbuild puts the service and the packages it
 * loads into dist/service/bundle/, and dist/service/index.js becomes a small entry that turns on source maps and
 * loads it (mapping stack traces back to the TypeScript). Loading one file instead of some 1,500 modules is most of the service's start-up (docs/BENCHMARKS.md,
 * issue 19). Code loaded only on demand (`import()`: restore, OpenID, mail, certificate generation, backup...) is
 * split into chunks beside the bundle, so it costs nothing until used.
 *
 * Left out of the bundle, and loaded from node_modules as before:
 * - better-sqlite3: a native module (`.node` binary, rebuilt per platform and for Electron);
 * - pino, pino-roll and thread-stream: pino starts its transports in a worker thread that loads its own files and
 *   the transport packages by name, so they must stay real packages.
 * The worker threads' modules are bundled as entries of their own beside the bundle, where their starters look for
 * them: the audit parse worker (service/audit/parse-worker.ts, found by parsers.ts) and the SQLite checkpoint,
 * integrity scan and snapshot workers (service/storage/sqlite/*-worker.ts, found by worker-script.ts).
 */
import { rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import type { Plugin } from 'esbuild';
import type { SqliteWorkerName } from '../service/storage/sqlite/worker-script.js';
import { isRouteCode, ROUTE_CODE_DIR, writeCompiledSchemas } from './compile-schemas.js';

const root = resolve(import.meta.dirname, '..', '..');
const outdir = join(root, 'dist', 'service', 'bundle');

/** The SQLite worker modules, each an entry named as service/storage/sqlite/worker-script.ts looks for it. */
const SQLITE_WORKERS: readonly SqliteWorkerName[] = ['checkpoint-worker', 'integrity-scan-worker', 'snapshot-worker'];

/** Packages that must be loaded from node_modules (see above). */
export const EXTERNAL = ['better-sqlite3', 'pino', 'pino-roll', 'thread-stream'];

/**
 * CommonJS packages in an ES module bundle still call `require` for Node's built-ins, and some read `__dirname`: both
 * are given to every output file, pointing at the bundle.
 */
const BANNER = [
  "import { createRequire as __junctionCreateRequire } from 'node:module';",
  "import { fileURLToPath as __junctionFileURLToPath } from 'node:url';",
  "import { dirname as __junctionDirname } from 'node:path';",
  'const require = __junctionCreateRequire(import.meta.url);',
  'const __filename = __junctionFileURLToPath(import.meta.url);',
  'const __dirname = __junctionDirname(__filename);',
].join('\n');

/**
 * The entry `node dist/service/index.js` runs. Stack traces in the log name the TypeScript: the logger
 * (service/log-stacks.ts) rewrites the bundle positions of a logged error's stack through the bundle's source map,
 * using the function this entry publishes. Only logged stacks are mapped. Mapping every stack as V8 formats it
 * (`Error.prepareStackTrace`, as this entry did before) parsed the 2.4 MB map on the first stack anything read, and
 * Node reads the stack of every error a stream is destroyed with (a client resetting its connection): 47 MB of heap
 * kept and a stall of the main thread in the middle of serving. Node's own source maps
 * (`process.setSourceMapsEnabled`) read and index every map as the bundle loads, which cost about 60 ms of CPU and
 * 20 MB of RSS on every start (issue 19).
 */
const ENTRY = `// Written by scripts/bundle-service.ts (npm run build:service): the service is in ./bundle/.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

const bundle = new URL('./bundle/', import.meta.url).href;
// Parsed maps are dropped a minute after their last use: a logged error is rare, the parsed map is large.
const maps = new Map();
let dropTimer = null;

function mapOf(file) {
  if (!maps.has(file)) {
    let map = null;
    try {
      map = new SourceMap(JSON.parse(readFileSync(fileURLToPath(file) + '.map', 'utf8')));
    } catch {
      // No map (or an unreadable one): the frame keeps the bundle's position.
    }
    maps.set(file, map);
  }
  if (dropTimer !== null) clearTimeout(dropTimer);
  dropTimer = setTimeout(() => {
    maps.clear();
    dropTimer = null;
  }, 60_000);
  dropTimer.unref();
  return maps.get(file);
}

const BUNDLE_POSITION = /(file:\\/\\/[^\\s()]*\\/bundle\\/[^\\s()/]+\\.js):(\\d+):(\\d+)/g;

/** A stack's text with every position in the bundle replaced by its place in the TypeScript sources. */
function mapStack(text) {
  if (typeof text !== 'string' || !text.includes(bundle)) return text;
  return text.replace(BUNDLE_POSITION, (whole, file, line, column) => {
    if (!file.startsWith(bundle)) return whole;
    const entry = mapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1);
    if (entry === undefined || typeof entry.originalSource !== 'string') return whole;
    return fileURLToPath(new URL(entry.originalSource, file)) + ':' + (entry.originalLine + 1) + ':' + (entry.originalColumn + 1);
  });
}

globalThis[Symbol.for('junction.mapStack')] = mapStack;

await import('./bundle/junction.js');
`;

/** Where the schemas compiled at build time are written before they are bundled (scripts/compile-schemas.ts). */
const schemasDir = join(root, 'dist', 'schemas');

/**
 * The modules that carry no compiled code in the sources, and the generated ones the bundle takes instead, so the
 * bundle's compiled schemas always come from the sources it is built from.
 */
const COMPILED = [
  { source: join(root, 'service', 'api', 'compiled-schema-table.ts'), generated: join(schemasDir, 'routes.js') },
  { source: join(root, 'service', 'config', 'compiled-validator.ts'), generated: join(schemasDir, 'config.js') },
];

/** An esbuild plugin that bundles each generated module of COMPILED in place of its source. */
const compiledSchemas: Plugin = {
  name: 'junction-compiled-schemas',
  setup(build) {
    build.onResolve({ filter: /[/\\]compiled-(schema-table|validator)\.js$/ }, async (args) => {
      if (args.pluginData === 'compiled-schemas') return undefined;
      const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'compiled-schemas' });
      const swap = COMPILED.find((c) => c.source === resolved.path);
      return swap === undefined ? resolved : { path: swap.generated };
    });
  },
};

/** Builds the bundle and writes the entry; resolves with the output files and their sizes. */
export async function bundleService(): Promise<Record<string, number>> {
  // Chunk names carry hashes: chunks of an earlier build would otherwise pile up.
  await rm(outdir, { recursive: true, force: true });
  const schemas = await writeCompiledSchemas(root, schemasDir);
  const result = await build({
    absWorkingDir: root,
    entryPoints: {
      junction: 'service/index.ts',
      'parse-worker': 'service/audit/parse-worker.ts',
      ...Object.fromEntries(SQLITE_WORKERS.map((name) => [name, `service/storage/sqlite/${name}.ts`])),
    },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    external: EXTERNAL,
    // Chunks beside the entries: parsers.ts finds its worker relative to its own file, wherever that lands.
    chunkNames: '[name]-[hash]',
    banner: { js: BANNER },
    sourcemap: 'linked',
    // Stack traces need the positions only; the sources stay in the checkout, and the maps stay small to read.
    sourcesContent: false,
    // No keepNames: it wraps every named function and closure in a __name() call that redefines its name when it is
    // created, 2.4% of the proxy's CPU at full speed (closures made per request). Identifiers are not minified, so
    // names stay as written; esbuild suffixes a digit only where two modules' top-level names collide (some library
    // classes; none of Junction's error classes, which log their names).
    keepNames: false,
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'linked',
    metafile: true,
    logLevel: 'warning',
    plugins: [compiledSchemas],
  });
  for (const { source, generated } of COMPILED) {
    // A renamed placeholder would otherwise leave the bundle compiling at start without a word.
    if (result.metafile.inputs[relative(root, generated)] === undefined) throw new Error(`the bundle did not take ${generated} in place of ${source}`);
  }
  // Each route's compiled code on its own, with what it calls from ajv, fast-json-stringify and the free-form check,
  // read by `require` on the route's first use (scripts/compile-schemas.ts).
  const routeCode = await build({
    absWorkingDir: root,
    entryPoints: schemas.files.filter(isRouteCode).map((file) => join(schemasDir, file)),
    outdir: join(outdir, ROUTE_CODE_DIR),
    // CommonJS in a "type": "module" package: the extension says so to Node's require.
    outExtension: { '.js': '.cjs' },
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20.19',
    minify: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  await writeFile(join(root, 'dist', 'service', 'index.js'), ENTRY);
  const outputs = { ...result.metafile.outputs, ...routeCode.metafile.outputs };
  return Object.fromEntries(Object.entries(outputs).map(([file, output]) => [file, output.bytes]));
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const outputs = await bundleService();
  const total = Object.values(outputs).reduce((sum, bytes) => sum + bytes, 0);
  process.stdout.write(`service bundle: ${Object.keys(outputs).length} files, ${(total / 2 ** 20).toFixed(1)} MB in dist/service/bundle/\n`);
}
