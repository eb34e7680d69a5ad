/**
 * The process's open-file limit (RLIMIT_NOFILE), which bounds how many connections it can hold. Node itself raises
 * the soft limit to the hard one as it starts (on Linux and macOS), so normally there is nothing left to raise; where
 * the soft limit is still lower (an embedding that skipped it), util-linux `prlimit` raises it for this process, as
 * Node has no setrlimit. Read from /proc/self/limits; elsewhere the limit is unknown and a fixed cap applies.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';

export interface FileLimit {
  soft: number | null;
  hard: number | null;
}

/** Parses the "Max open files" line of /proc/<pid>/limits; null for "unlimited". */
export function parseFileLimit(limits: string): FileLimit | undefined {
  const line = limits.split('\n').find((l) => l.startsWith('Max open files'));
  if (line === undefined) return undefined;
  const [soft, hard] = line.slice('Max open files'.length).trim().split(/\s+/);
  const value = (text: string | undefined) => (text === undefined || text === 'unlimited' ? null : Number.parseInt(text, 10));
  const result = { soft: value(soft), hard: value(hard) };
  if (Number.isNaN(result.soft) || Number.isNaN(result.hard)) return undefined;
  return result;
}

/** This process's limit, or undefined where /proc is not there. */
export async function readFileLimit(): Promise<FileLimit | undefined> {
  try {
    return parseFileLimit(await readFile('/proc/self/limits', 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Raises the soft limit to the hard one when it is lower and `prlimit` is installed; resolves with the limit in
 * force afterwards. Never fails the start: a limit left as it was is logged.
 */
export async function raiseFileLimit(logger: Logger): Promise<FileLimit | undefined> {
  const before = await readFileLimit();
  if (before === undefined || before.soft === null || before.hard === null || before.soft >= before.hard) return before;
  const wanted = before.hard;
  const ok = await new Promise<boolean>((resolve) => {
    execFile('prlimit', ['--pid', String(process.pid), `--nofile=${wanted}:${wanted}`], { timeout: 5_000 }, (err) => {
      if (err !== null) logger.warn({ soft: before.soft, hard: wanted, err: err.message }, 'could not raise the open-file limit (prlimit); connection limits are computed from the lower one');
      resolve(err === null);
    });
  });
  const after = ok ? await readFileLimit() : before;
  if (ok) logger.info({ from: before.soft, to: after?.soft }, 'raised the open-file limit');
  return after;
}
