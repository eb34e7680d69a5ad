/**
 * Reads Junction's own log files (pino JSON lines that pino-roll writes to `<dataDir>/logs/junction.<date>.<n>.log`)
 * for `GET /logs`. Files are streamed line by line, never loaded whole: files whose last write is before the window,
 * or whose day starts after it, are not opened, and within a file the first line of the window is found by bisection
 * (lines are written in time order), so a query over the last five minutes of a 10 MB file reads a few kilobytes.
 * Newest first (`order=newest`), files are read backwards from the window's end in blocks, so the first page of a
 * long window costs no more than the last page of a short one.
 */
import { createReadStream } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { LogEntry } from '../contracts/logs.js';
import { LEVEL_NUMBERS, lineHead, matchesSearch, parseLogLine } from '../domain/operations/log-lines.js';
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

/** Where a line stands against the query: before or after its window, not kept (level, search, not a line), or kept. */
type Judged = { kind: 'before' } | { kind: 'after' } | { kind: 'skip' } | { kind: 'keep'; entry: LogEntry };

const BEFORE: Judged = { kind: 'before' };
const AFTER: Judged = { kind: 'after' };
const SKIP: Judged = { kind: 'skip' };

function judge(line: string, query: LogQuery): Judged {
  // Most lines are judged by their head alone, without parsing the whole line.
  const head = lineHead(line);
  if (head !== null) {
    if (head.time > query.until) return AFTER;
    if (head.time < query.from) return BEFORE;
    if (head.level < query.minLevel) return SKIP;
  }
  // A torn last line (a write in progress) or a line that is not pino's is not an entry.
  const entry = parseLogLine(line);
  if (entry === null) return SKIP;
  if (head === null) {
    const time = Date.parse(entry.timestamp);
    if (time < query.from || time > query.until || LEVEL_NUMBERS[entry.level] < query.minLevel) return SKIP;
  }
  if (!matchesSearch(entry, query.search)) return SKIP;
  return { kind: 'keep', entry };
}

/** The lines of `dir`'s log files in the query's window, level and search, in its order, paged by `start` and `limit`. */
export async function readLogs(dir: string, query: LogQuery): Promise<LogEntry[]> {
  return query.newestFirst === true ? readNewestFirst(dir, query) : readOldestFirst(dir, query);
}

async function readOldestFirst(dir: string, query: LogQuery): Promise<LogEntry[]> {
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
        const judged = judge(line, query);
        if (judged.kind === 'after') {
          past = true;
          break;
        }
        if (judged.kind !== 'keep') continue;
        if (skipped < query.start) {
          skipped += 1;
          continue;
        }
        found.push(judged.entry);
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

/**
 * Newest first (the console's order): the newest file first, each read backwards from the end of the window's last
 * line, so the first page of a long window costs a few blocks at the end of one file.
 */
async function readNewestFirst(dir: string, query: LogQuery): Promise<LogEntry[]> {
  const found: LogEntry[] = [];
  let skipped = 0;
  for (const file of (await filesFor(dir, query.from, query.until)).reverse()) {
    let before = false;
    try {
      const end = await endOffset(file, query.until);
      for await (const line of linesBackward(file.path, end)) {
        const judged = judge(line, query);
        if (judged.kind === 'before') {
          // Lines are written in time order, and older files hold older lines: nothing further back is in the window.
          before = true;
          break;
        }
        if (judged.kind !== 'keep') continue;
        if (skipped < query.start) {
          skipped += 1;
          continue;
        }
        found.push(judged.entry);
        if (found.length >= query.limit) return found;
      }
    } catch (err) {
      // Rotation removed it since it was listed: its lines are gone.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (before) break;
  }
  return found;
}

/**
 * An offset at a line boundary (or the end of the file) after which every line is newer than `until`: bisection as
 * in startOffset, then on to the end of the line the bisection stopped in.
 */
async function endOffset(file: LogFile, until: number): Promise<number> {
  if (file.size <= SCAN_BYTES) return file.size;
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
      // Only a line head proven newer than the window moves the end down; anything else keeps the upper half.
      if (head !== null && head.time > until) hi = mid;
      else lo = mid;
    }
    if (hi >= file.size) return file.size;
    // The line that holds byte `hi` may have begun in the window: the end is after its newline.
    for (let position = hi; position < file.size; position += PROBE_BYTES) {
      const { bytesRead } = await handle.read(buffer, 0, PROBE_BYTES, position);
      if (bytesRead === 0) break;
      const newline = buffer.subarray(0, bytesRead).indexOf(0x0a);
      if (newline >= 0) return position + newline + 1;
    }
    return file.size;
  } finally {
    await handle.close();
  }
}

/** The lines of a file that end before byte `end`, last first; read in blocks from the end, split on bytes so no character is cut. */
async function* linesBackward(path: string, end: number): AsyncGenerator<string> {
  const handle = await open(path, 'r');
  try {
    let position = end;
    // The bytes after the last newline seen so far: the end part of a line whose start is further back.
    let carry = Buffer.alloc(0);
    while (position > 0) {
      const size = Math.min(SCAN_BYTES, position);
      position -= size;
      const block = Buffer.alloc(size);
      const { bytesRead } = await handle.read(block, 0, size, position);
      let chunk = carry.length === 0 ? block.subarray(0, bytesRead) : Buffer.concat([block.subarray(0, bytesRead), carry]);
      for (let cut = chunk.lastIndexOf(0x0a); cut >= 0; cut = chunk.lastIndexOf(0x0a)) {
        if (cut + 1 < chunk.length) yield chunk.subarray(cut + 1).toString('utf8');
        chunk = chunk.subarray(0, cut);
      }
      carry = chunk;
    }
    if (carry.length > 0) yield carry.toString('utf8');
  } finally {
    await handle.close();
  }
}
