/**
 * `junction restore <archive> [--data-dir <folder>] [--config <file>]`: restores a backup archive into an empty data
 * folder, by default the one the configuration names (as the service would use it). Run it while the service is
 * stopped; it checks the whole archive first and writes nothing when it is damaged or the folder is not empty.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { loadConfig } from '../config/index.js';
import { RestoreError, restoreArchive } from './restore.js';

const USAGE = 'usage: junction restore <archive.tar.gz> [--data-dir <folder>] [--config <file>]';

export interface CommandOutput {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Runs the restore command with the arguments after `restore`; resolves with the process exit code. */
export async function runRestoreCommand(args: readonly string[], env: Record<string, string | undefined>, output: CommandOutput): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], allowPositionals: true, options: { 'data-dir': { type: 'string' }, config: { type: 'string' } } });
  } catch (err) {
    output.err(`${(err as Error).message}\n${USAGE}`);
    return 64;
  }
  const [archive, ...extra] = parsed.positionals;
  if (archive === undefined || extra.length > 0) {
    output.err(USAGE);
    return 64;
  }
  let dataDir = parsed.values['data-dir'];
  if (dataDir === undefined) {
    try {
      dataDir = loadConfig({ argv: parsed.values.config === undefined ? [] : ['--config', parsed.values.config], env }).config.dataDir;
    } catch (err) {
      output.err(`cannot tell which data folder to restore into (${(err as Error).message}); name it with --data-dir`);
      return 78;
    }
  }
  const target = resolve(dataDir);
  output.out(`Checking ${archive} and restoring it into ${target} ...`);
  try {
    const manifest = await restoreArchive(resolve(archive), target);
    const bytes = manifest.entries.reduce((sum, e) => sum + e.size, 0);
    output.out(`Restored ${manifest.entries.length} files (${bytes} bytes) from the backup of ${manifest.created} (Junction ${manifest.junctionVersion}) into ${target}.`);
    output.out('Start Junction with this data folder and the same configuration file.');
    return 0;
  } catch (err) {
    output.err(`Restore refused: ${err instanceof RestoreError ? err.message : String(err)}`);
    return 1;
  }
}
