/** Where the desktop app keeps things, and how it starts the service: derived from Electron's folders, no Electron import. */
import { join } from 'node:path';

export interface ShellPaths {
  /** The service's data folder (JUNCTION_DATA_DIR): stores, body files, certificates, the service's own log. */
  dataDir: string;
  /** The shell's log folder (shell.log: supervision events and the service's output). */
  logsDir: string;
  /** An optional service configuration file; passed with --config when it exists. */
  configFile: string;
  /** The built service entry point inside the app. */
  serviceEntry: string;
  appIcon: string;
  trayIcon: string;
  /** True when the tray icon is a macOS template image. */
  trayTemplate: boolean;
}

/** The app's paths from Electron's user-data folder and app folder (the repository, or resources/app when installed). */
export function shellPaths(userData: string, appPath: string, platform: NodeJS.Platform): ShellPaths {
  const icons = join(appPath, 'assets', 'icons');
  return {
    dataDir: join(userData, 'data'),
    logsDir: join(userData, 'logs'),
    configFile: join(userData, 'junction.json'),
    serviceEntry: join(appPath, 'dist', 'service', 'index.js'),
    appIcon: join(icons, 'icon.png'),
    trayIcon: join(icons, platform === 'darwin' ? 'trayTemplate.png' : 'tray.png'),
    trayTemplate: platform === 'darwin',
  };
}

/**
 * The service's environment: the shell's own, with the data folder set unless someone set JUNCTION_DATA_DIR
 * on purpose before starting the app.
 */
export function serviceEnv(env: NodeJS.ProcessEnv, paths: ShellPaths): NodeJS.ProcessEnv {
  return { ...env, JUNCTION_DATA_DIR: env.JUNCTION_DATA_DIR ?? paths.dataDir };
}

/** The service's arguments: `--config <file>` when the configuration file exists. */
export function serviceArgs(paths: ShellPaths, configExists: boolean): string[] {
  return configExists ? ['--config', paths.configFile] : [];
}
