/**
 * Entry point: config -> logger -> store -> listeners -> ready. SIGTERM and SIGINT stop cleanly (exit 0); `POST /restart`
 * stops cleanly and exits 75, for the supervisor to start the service again.
 */
import { join } from 'node:path';
import { loadConfig, ConfigError } from './config/index.js';
import { createLogger, mapStackText } from './logger.js';
import type { ServiceLogger } from './logger.js';
import { Junction } from './app.js';
import { raiseFileLimit } from './transports/file-limit.js';
import { readVersion } from './version.js';
import type { RestartExitCode, ServiceCertificateMessage, ServiceReadyMessage, ServiceStopMessage } from './contracts/shell.js';

const STOP_TIMEOUT_MS = 15_000;
/** After `POST /restart`: a clean stop that asks the supervisor (desktop shell, systemd) to start the service again. */
const RESTART_EXIT_CODE: RestartExitCode = 75;

function fail(message: string, code = 1): never {
  process.stderr.write(`Junction cannot start: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  let loaded;
  try {
    loaded = loadConfig({ argv: process.argv.slice(2), env: process.env });
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, 78);
    throw err as Error;
  }
  const { config, warnings, configFile } = loaded;
  const log: ServiceLogger = createLogger({
    level: config.logging.level,
    fileDir: config.logging.file.enabled ? join(config.dataDir, 'logs') : undefined,
    maxSizeMB: config.logging.file.maxSizeMB,
    maxFiles: config.logging.file.maxFiles,
  });
  const { logger } = log;
  for (const warning of warnings) logger.warn(warning);
  const version = readVersion();
  logger.info({ version, configFile: configFile ?? null, dataDir: config.dataDir }, 'Junction starting');
  // The connection cap is computed from the open-file limit, so it is as high as this process may have first.
  await raiseFileLimit(logger);

  const junction = new Junction({ config, logger, version, logProblems: () => log.problems() });
  let stopping = false;
  const stop = (signal: string, exitCode = 0) => {
    if (stopping) {
      logger.warn({ signal }, 'second stop signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'stopping');
    const force = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, STOP_TIMEOUT_MS);
    force.unref();
    junction
      .stop()
      .then(() => log.close())
      .then(() => process.exit(exitCode))
      .catch((err: unknown) => {
        logger.error({ err }, 'error while stopping');
        process.exit(1);
      });
  };
  junction.onRestartRequested((by) => {
    logger.info({ by, exitCode: RESTART_EXIT_CODE }, 'restarting: stopping cleanly, then exiting for the supervisor to start the service again');
    stop('restart requested', RESTART_EXIT_CODE);
  });
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  if (process.send !== undefined) {
    // Started by the Electron shell: it asks for a stop over IPC where signals cannot be caught (Windows), and if the
    // shell itself dies the channel closes, so stop rather than linger as an orphan holding the ports.
    process.on('message', (message: Partial<ServiceStopMessage> | null) => {
      if (message?.type === 'stop') stop('IPC stop message');
      else logger.warn({ message }, 'ignored an IPC message from the shell: only {"type": "stop"} is understood');
    });
    process.on('disconnect', () => {
      if (!stopping) stop('shell disconnected');
    });
  }
  process.on('unhandledRejection', (err) => {
    logger.fatal({ err }, 'unhandled promise rejection');
  });

  try {
    const started = await junction.start();
    // When started by the Electron shell over IPC, tell it where the console is and which certificate to pin.
    const ready: ServiceReadyMessage = {
      type: 'ready',
      apiUrl: started.apiUrl,
      version,
      certificateFingerprint256: started.apiUrl.startsWith('https:') ? started.certificate.fingerprint256 : null,
    };
    process.send?.(ready);
    if (ready.certificateFingerprint256 !== null && process.send !== undefined) {
      // A certificate uploaded through the keystore is served at once; the shell moves its pin with it.
      junction.keystore.onChange(({ certificate, certificateChanged }) => {
        if (!certificateChanged) return;
        const message: ServiceCertificateMessage = { type: 'certificate', certificateFingerprint256: certificate.fingerprint256 };
        process.send?.(message);
      });
    }
  } catch (err) {
    // Set first: if the event loop drains while the logs flush, the process must still exit with failure.
    process.exitCode = 1;
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`Junction cannot start: ${message}\n`);
    logger.fatal({ err }, 'start-up failed');
    await junction.stop().catch(() => undefined);
    await log.close();
    process.exit(1);
  }
}

// `restore` is a command of its own (backup/restore-cli.ts): it restores an archive and exits, starting nothing; so is
// `migrate-to-postgres` (migrate/cli.ts), which copies a data folder into PostgreSQL.
const command = process.argv[2] === 'restore' ? restore() : process.argv[2] === 'migrate-to-postgres' ? migrateToPostgres() : main();
command.catch((err: unknown) => {
  fail(err instanceof Error ? (err.stack === undefined ? err.message : mapStackText(err.stack)) : String(err));
});

async function restore(): Promise<void> {
  const { runRestoreCommand } = await import('./backup/restore-cli.js');
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const err = (line: string) => process.stderr.write(`${line}\n`);
  process.exitCode = await runRestoreCommand(process.argv.slice(3), process.env, { out, err });
}

async function migrateToPostgres(): Promise<void> {
  const { runMigrateCommand } = await import('./migrate/cli.js');
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const err = (line: string) => process.stderr.write(`${line}\n`);
  process.exitCode = await runMigrateCommand(process.argv.slice(3), { out, err });
}
