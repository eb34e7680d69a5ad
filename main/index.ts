/**
 * Electron entry point: one instance per user, the service supervised as a child process (run by Electron's own
 * Node), the console in a window, a tray icon. Closing the window keeps Junction running in the tray; Quit stops
 * the service cleanly first.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, dialog, session } from 'electron';
import type { WebContents } from 'electron';
import { LogFile } from './log-file.js';
import { serviceArgs, serviceEnv, shellPaths } from './paths.js';
import type { ShellPaths } from './paths.js';
import { Supervisor } from './supervisor.js';
import { ShellTray } from './tray.js';
import { ConsoleWindow, guardContents, secureSession } from './window.js';

const APP_NAME = 'Junction';
const APP_ID = 'org.junction.mediator';
/** A partition of its own, so the certificate pin and permission rules apply to nothing else. */
const PARTITION = 'persist:junction';

class JunctionShell {
  readonly #paths: ShellPaths;
  readonly #log: LogFile;
  readonly #supervisor: Supervisor;
  #window: ConsoleWindow | null = null;
  #tray: ShellTray | null = null;
  #shuttingDown = false;
  #readyToQuit = false;

  constructor() {
    this.#paths = shellPaths(app.getPath('userData'), app.getAppPath(), process.platform);
    mkdirSync(this.#paths.dataDir, { recursive: true });
    this.#log = new LogFile({ dir: this.#paths.logsDir });
    this.#supervisor = new Supervisor({
      entry: this.#paths.serviceEntry,
      args: serviceArgs(this.#paths, existsSync(this.#paths.configFile)),
      // Electron's binary, run as plain Node by ELECTRON_RUN_AS_NODE (the supervisor sets it): nothing else to install.
      execPath: process.execPath,
      execArgv: [],
      env: serviceEnv(process.env, this.#paths),
      cwd: app.getPath('userData'),
      log: this.#log,
    });
  }

  /** Runs until quit; a second start of the app only brings this one's window forward. */
  async run(): Promise<void> {
    app.on('second-instance', () => this.#window?.show());
    app.on('activate', () => this.#window?.show());
    // The window only hides on close, so this fires only while quitting; without a listener Electron would quit early.
    app.on('window-all-closed', () => undefined);
    app.on('before-quit', (event) => {
      if (this.#readyToQuit) return;
      event.preventDefault();
      void this.#shutdown();
    });
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void this.#shutdown());

    this.#log.write('shell', `Junction ${app.getVersion()} starting (Electron ${process.versions.electron ?? '?'}, data in ${this.#paths.dataDir})`);
    this.#supervisor.start();
    await app.whenReady();
    if (process.platform === 'win32') app.setAppUserModelId(APP_ID);

    const ses = session.fromPartition(PARTITION);
    const window = new ConsoleWindow({
      session: ses,
      preload: join(dirname(fileURLToPath(import.meta.url)), 'preload.cjs'),
      icon: this.#paths.appIcon,
      appVersion: app.getVersion(),
      logsDir: this.#paths.logsDir,
      report: (text) => this.#log.write('shell', text),
    });
    this.#window = window;
    secureSession(ses, window.pinned);
    app.on('web-contents-created', (_event, contents: WebContents) => guardContents(contents, window.pinned, window.preferences));

    this.#tray = new ShellTray({
      icon: this.#paths.trayIcon,
      template: this.#paths.trayTemplate,
      onOpen: () => window.show(),
      onRetry: () => this.#supervisor.start(),
      onQuit: () => app.quit(),
    });
    const follow = () => {
      window.update(this.#supervisor.state);
      this.#tray?.update(this.#supervisor.state);
    };
    this.#supervisor.onChange(follow);
    follow();
    window.show();
  }

  /** Stops the service (cleanly, then forcefully after the supervisor's timeout), then lets Electron quit. */
  async #shutdown(): Promise<void> {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    this.#log.write('shell', 'quitting');
    this.#window?.allowClose();
    try {
      await this.#supervisor.stop();
    } finally {
      this.#tray?.destroy();
      this.#log.write('shell', 'Junction quit');
      this.#log.close();
      this.#readyToQuit = true;
      app.quit();
    }
  }
}

// Before anything reads it: the same folder in development and installed (package.json's name is lower case).
app.setName(APP_NAME);
app.setPath('userData', join(app.getPath('appData'), APP_NAME));

/** Shows why the shell itself could not run (the service's own failures are shown in the window instead). */
function fatal(err: unknown): void {
  const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`Junction shell failed: ${message}\n`);
  dialog.showErrorBox('Junction cannot start', message);
  app.exit(1);
}

if (app.requestSingleInstanceLock()) {
  try {
    new JunctionShell().run().catch(fatal);
  } catch (err) {
    fatal(err);
  }
} else {
  // Another instance is running; it shows its window when it hears of this start.
  app.quit();
}
