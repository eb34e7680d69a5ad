/** The per-user default data folder, following each platform's convention for application data. */
import { posix, win32 } from 'node:path';

/** The default `dataDir` for a platform, user home and environment. */
export function defaultDataDir(input: {
  platform: NodeJS.Platform;
  homeDir: string;
  env: Record<string, string | undefined>;
}): string {
  const { platform, homeDir, env } = input;
  if (platform === 'win32') {
    const appData = env.APPDATA;
    return appData !== undefined && appData !== ''
      ? win32.join(appData, 'Junction')
      : win32.join(homeDir, 'AppData', 'Roaming', 'Junction');
  }
  if (platform === 'darwin') return posix.join(homeDir, 'Library', 'Application Support', 'Junction');
  // Linux and other Unixes: the XDG base directory spec says a relative XDG_DATA_HOME must be ignored.
  const xdg = env.XDG_DATA_HOME;
  if (xdg !== undefined && posix.isAbsolute(xdg)) return posix.join(xdg, 'junction');
  return posix.join(homeDir, '.local', 'share', 'junction');
}

/** Makes a configured data folder absolute; relative paths are taken from the working directory. */
export function absoluteDataDir(dataDir: string, platform: NodeJS.Platform, cwd: string): string {
  const path = platform === 'win32' ? win32 : posix;
  return path.isAbsolute(dataDir) ? dataDir : path.resolve(cwd, dataDir);
}
