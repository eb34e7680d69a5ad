/**
 * Reads Junction's own log files (pino JSON lines that pino-roll writes to `<dataDir>/logs/junction.<date>.<n>.log`)
 * for `GET /logs`. Files are streamed line by line, never loaded whole: files whose last write is before the window,
 * or whose day starts after it, are not opened, and within a file the first line of the window is found by bisection
 * (lines are written in time order), so a query over the last five minutes of a 10 MB file reads a few kilobytes.
 */
import { createReadStream } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { LogEntry } from '../contracts/logs.js';
import { LEVEL_NUMBERS, lineHead, parseLogLine } from '../domain/operations/log-lines.js';
import type { LogQuery } from '../domain/operations/log-lines.js';

const FILE_NAME = /^junction\.(\d{4})-(\d{2})-(\d{2})\.(\d+)\.log$/;
/** Below this gap the bisection stops and the rest is scanned. */
const SCAN_BYTES = 64 * 1024;
/** Enough to hold the end of one line and the head of the next. */
const PROBE_BYTES = 16 * 1024;

interface LogFile {
  path: string;
  /** Local midnight of the day in its name: it holds no line older than this. */
  dayStart: number;
  sequence: number;
  size: number;
}

/** The log files that may hold lines of [from, until], oldest first. A missing folder has none. */
async function filesFor(dir: string, from: number, until: number): Promise<LogFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const files: LogFile[] = [];
  for (const name of names) {
    const match = FILE_NAME.exec(name);
    if (match === null) continue;
    // pino-roll names a file after the local date it was opened on.
    const dayStart = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3])).getTime();
    if (dayStart > until) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    // Its last write is before the window: nothing in it can be in the window. (A file removed by rotation meanwhile is skipped.)
    if (info === null || !info.isFile() || info.mtimeMs < from) continue;
    files.push({ path, dayStart, sequence: Number(match[4]), size: info.size });
  }
  return files.sort((a, b) => a.dayStart - b.dayStart || a.sequence - b.sequence);
}

/**
 * An offset to start reading `file` at: every whole line before the first line that follows it is older than `from`.
 * 0 when the file is small or starts inside the window.
 */
async function startOffset(file: LogFile, from: number): Promise<number> {
  if (file.size <= SCAN_BYTES) return 0;
  const handle = await open(file.path, 'r');
  try {
    let lo = 0;
    let hi = file.size;
    const buffer = Buffer.alloc(PROBE_BYTES);
    while (hi - lo > SCAN_BYTES) {
      const mid = Math.floor((lo + hi) / 2);
      const { bytesRead } = await handle.read(buffer, 0, PROBE_BYTES, mid);
      const text = buffer.subarray(0, bytesRead).toString('utf8');
      const newline = text.indexOf('\n');
      const head = newline < 0 ? null : lineHead(text.slice(newline + 1));
      // A probe that finds no readable line head cannot prove the window starts later, so the scan keeps the lower half.
      if (head !== null && head.time < from) lo = mid;
      else hi = mid;
    }
    return lo;
  } finally {
    await handle.close();
  }
}

/** The lines of `dir`'s log files in the query's window and level, oldest first, paged by `start` and `limit`. */
export async function readLogs(dir: string, query: LogQuery): Promise<LogEntry[]> {
  const found: LogEntry[] = [];
  let skipped = 0;
  for (const file of await filesFor(dir, query.from, query.until)) {
    let offset: number;
    try {
      offset = await startOffset(file, query.from);
    } catch (err) {
      // Rotation removed it since it was listed: its lines are gone.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    const stream = createReadStream(file.path, { start: offset, encoding: 'utf8' });
    const lines = createInterface({ input: stream, crlfDelay: Infinity });
    let first = offset > 0;
    let past = false;
    try {
      for await (const line of lines) {
        // Reading began inside a line: its start is before the offset, so it is older than the window.
        if (first) {
          first = false;
          continue;
        }
        // Most lines are judged by their head alone, without parsing the whole line.
        const head = lineHead(line);
        if (head !== null) {
          if (head.time > query.until) {
            past = true;
            break;
          }
          if (head.time < query.from || head.level < query.minLevel) continue;
        }
        // A torn last line (a write in progress) or a line that is not pino's is not an entry.
        const entry = parseLogLine(line);
        if (entry === null) continue;
        if (head === null) {
          const time = Date.parse(entry.timestamp);
          if (time < query.from || time > query.until || LEVEL_NUMBERS[entry.level] < query.minLevel) continue;
        }
        if (skipped < query.start) {
          skipped += 1;
          continue;
        }
        found.push(entry);
        if (found.length >= query.limit) {
          past = true;
          break;
        }
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    } finally {
      lines.close();
      stream.destroy();
    }
    if (past) break;
  }
  return found;
}
