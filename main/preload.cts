/**
 * Runs in the console's sandboxed renderer before the page. Exposes one frozen, read-only object as
 * `window.junctionShell` so the console can tell it runs in the desktop app; no functions, no IPC, no Node.
 * CommonJS (.cts) because sandboxed preload scripts cannot be ES modules.
 */
import type { JunctionShellInfo } from '../service/contracts/shell.js';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS module's form of import
import electron = require('electron');

const VERSION_ARG = '--junction-app-version=';

const info: JunctionShellInfo = Object.freeze({
  kind: 'electron',
  appVersion: process.argv.find((arg) => arg.startsWith(VERSION_ARG))?.slice(VERSION_ARG.length) ?? 'unknown',
  platform: process.platform,
});

electron.contextBridge.exposeInMainWorld('junctionShell', info);
