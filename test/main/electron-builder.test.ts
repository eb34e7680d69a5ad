/**
 * The installer configuration, checked with electron-builder's own code (its config loader, schema validation and
 * file matcher), since building installers needs internet access these machines do not have.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Configuration } from 'electron-builder';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import { DebugLogger } from 'builder-util';
import { shellPaths } from '../../main/paths.js';

const projectDir = resolve('.');

async function loadConfig(): Promise<Configuration> {
  return getConfig(projectDir, 'electron-builder.yml', null);
}

type Filter = (file: string, stat: Stats) => boolean;
interface Matcher {
  from: string;
  createFilter(): Filter;
}
type GetMainFileMatchers = (
  appDir: string,
  destination: string,
  macroExpander: (pattern: string) => string,
  platformSpecificBuildOptions: unknown,
  platformPackager: unknown,
  outDir: string,
  isElectronCompile: boolean,
) => Matcher[];

/** electron-builder's own decision whether a project file goes into the app, its folders walked as it walks them. */
async function appFileFilter(config: Configuration): Promise<(relative: string) => boolean> {
  // Internal to electron-builder (not in its typings), but it is exactly the function its packager calls.
  const { getMainFileMatchers } = (await import('app-builder-lib/out/fileMatcher.js')) as unknown as { getMainFileMatchers: GetMainFileMatchers };
  const packager = { info: { projectDir, buildResourcesDir: config.directories?.buildResources ?? 'build', isPrepackedAppAsar: false, config, debugLogger: new DebugLogger(false) } };
  const [matcher] = getMainFileMatchers(projectDir, '/app', (p) => p, config.linux ?? {}, packager, join(projectDir, 'release'), false);
  if (matcher === undefined) throw new Error('no file matcher');
  const filter = matcher.createFilter();
  const stat = (directory: boolean) => ({ isDirectory: () => directory }) as Stats;
  return (relative) => {
    const parts = relative.split('/');
    for (let i = 1; i < parts.length; i++) if (!filter(join(projectDir, ...parts.slice(0, i)), stat(true))) return false;
    return filter(join(projectDir, relative), stat(false));
  };
}

describe('electron-builder.yml', () => {
  it('passes electron-builder\'s own configuration validation', async () => {
    const config = await loadConfig();
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
    expect(config.linux?.target).toEqual(['AppImage', 'deb']);
    expect(config.win?.target).toEqual(['nsis']);
    expect(config.mac?.target).toEqual(['dmg']);
  });

  it('packs the shell, the service, the console and the icons, and leaves out tests, scripts, sources and source maps', async () => {
    const included = await appFileFilter(await loadConfig());
    // Everything the shell opens at run time, by the same paths it computes (relative to the app folder).
    const paths = shellPaths('/user-data', projectDir, 'linux');
    const mac = shellPaths('/user-data', projectDir, 'darwin');
    const needed = [
      'package.json',
      'dist/main/index.js',
      'dist/main/preload.cjs',
      'dist/main/supervisor.js',
      'dist/service/index.js',
      'dist/service/storage/sqlite/checkpointer.js',
      'dist/service/bundle/junction.js',
      'dist/service/bundle/junction.js.map',
      'dist/service/bundle/parse-worker.js',
      'renderer/dist/index.html',
      'renderer/dist/assets/index-abc123.js',
      ...[paths.serviceEntry, paths.appIcon, paths.trayIcon, mac.trayIcon].map((p) => p.slice(projectDir.length + 1).replaceAll('\\', '/')),
      'assets/icons/tray@2x.png',
      'assets/icons/trayTemplate@2x.png',
    ];
    for (const file of needed) expect(included(file), file).toBe(true);
    const left = [
      'dist/main/index.js.map',
      'dist/test/bench/run.js',
      'dist/scripts/generate-icons.js',
      'service/index.ts',
      'main/index.ts',
      'test/main/supervisor.test.ts',
      'renderer/src/main.tsx',
      'assets/junction.example.json',
      'electron-builder.yml',
      'release/Junction.AppImage',
    ];
    for (const file of left) expect(included(file), file).toBe(false);
  });

  it('starts the main process from the built shell, with its preload beside it', async () => {
    const config = await loadConfig();
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { main: string };
    const main = (config.extraMetadata as { main?: string } | undefined)?.main;
    expect(main).toBe(pkg.main);
    // Built by the global setup (tsc -p tsconfig.build.json), as `npm run build` does before packaging.
    expect(existsSync(main ?? '')).toBe(true);
    expect(existsSync(join(dirname(main ?? ''), 'preload.cjs'))).toBe(true);
    expect(readFileSync(join(dirname(main ?? ''), 'preload.cjs'), 'utf8')).toContain('require("electron")');
  });

  it('keeps the service\'s native module and worker-thread code out of any asar archive, and rebuilds it for Electron', async () => {
    const config = await loadConfig();
    if (config.asar !== false) {
      const unpack = ([] as string[]).concat(config.asarUnpack ?? []);
      for (const pattern of ['node_modules/better-sqlite3/**', 'node_modules/pino*/**', 'node_modules/thread-stream/**', 'dist/service/**']) {
        expect(unpack).toContain(pattern);
      }
    }
    expect(config.npmRebuild).not.toBe(false);
    // The supervisor runs the service with ELECTRON_RUN_AS_NODE: that fuse must stay on.
    expect(config.electronFuses?.runAsNode).toBe(true);
  });

  it('names an icon that exists and is big enough for every platform (512x512 PNG)', async () => {
    const config = await loadConfig();
    const icon = readFileSync(resolve(config.icon ?? ''));
    expect(icon.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([icon.readUInt32BE(16), icon.readUInt32BE(20)]).toEqual([512, 512]);
    for (const platform of [config.linux, config.win, config.mac]) expect(platform?.icon ?? null).toBeNull();
  });
});
