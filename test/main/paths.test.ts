import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceArgs, serviceEnv, shellPaths } from '../../main/paths.js';

describe('the app paths', () => {
  const userData = join('/home/ana/.config', 'Junction');
  const appPath = join('/opt/Junction/resources', 'app');

  it('keeps data and logs in the user-data folder and runs the service built into the app', () => {
    const paths = shellPaths(userData, appPath, 'linux');
    expect(paths).toMatchObject({
      dataDir: join(userData, 'data'),
      logsDir: join(userData, 'logs'),
      configFile: join(userData, 'junction.json'),
      serviceEntry: join(appPath, 'dist', 'service', 'index.js'),
      appIcon: join(appPath, 'assets', 'icons', 'icon.png'),
      trayIcon: join(appPath, 'assets', 'icons', 'tray.png'),
      trayTemplate: false,
    });
    expect(shellPaths(userData, appPath, 'darwin')).toMatchObject({ trayIcon: join(appPath, 'assets', 'icons', 'trayTemplate.png'), trayTemplate: true });
  });

  it('passes the data folder to the service unless JUNCTION_DATA_DIR was set on purpose', () => {
    const paths = shellPaths(userData, appPath, 'linux');
    expect(serviceEnv({ PATH: '/bin' }, paths)).toEqual({ PATH: '/bin', JUNCTION_DATA_DIR: join(userData, 'data') });
    expect(serviceEnv({ JUNCTION_DATA_DIR: '/srv/junction' }, paths).JUNCTION_DATA_DIR).toBe('/srv/junction');
  });

  it('passes --config only when the configuration file exists', () => {
    const paths = shellPaths(userData, appPath, 'linux');
    expect(serviceArgs(paths, false)).toEqual([]);
    expect(serviceArgs(paths, true)).toEqual(['--config', join(userData, 'junction.json')]);
  });
});
