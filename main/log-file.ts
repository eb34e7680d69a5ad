/**
 * The shell's own log: its supervision events and the service's stdout/stderr, one line each, in a size-capped file
 * that rotates into numbered older files (`shell.log`, `shell.1.log`, ...). Writes are synchronous so the last lines
 * before a crash are on disk; the volume is a few lines per second at most, since the service keeps its detailed log
 * in its own rotating file.
 */
import { closeSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join, parse } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

export interface LogFileOptions {
  dir: string;
  /** File name of the current log, e.g. `shell.log`. */
  fileName: string;
  /** Rotate before a write would take the current file past this size. */
  maxBytes: number;
  /** Files kept in all, the current one included. */
  maxFiles: number;
}

export const DEFAULT_LOG_FILE: Omit<LogFileOptions, 'dir'> = { fileName: 'shell.log', maxBytes: 5 * 1024 * 1024, maxFiles: 3 };

/** Where a line came from: the shell itself or one of the service's output streams. */
export type LogSource = 'shell' | 'stdout' | 'stderr';

/** A line longer than this is cut into pieces, so one runaway line cannot hold unbounded memory. */
const MAX_LINE_CHARS = 64 * 1024;

/** An append-only log file with rotation by size. */
export class LogFile {
  readonly #options: LogFileOptions;
  #fd: number | null = null;
  #size = 0;
  #failed = false;

  constructor(options: Partial<LogFileOptions> & { dir: string }) {
    this.#options = { ...DEFAULT_LOG_FILE, ...options };
    if (this.#options.maxFiles < 1) throw new RangeError('maxFiles must be at least 1');
  }

  /** Path of the current file. */
  get path(): string {
    return join(this.#options.dir, this.#options.fileName);
  }

  /** Path of the n-th older file (1 = the most recent rotated one). */
  rotatedPath(n: number): string {
    const { name, ext } = parse(this.#options.fileName);
    return join(this.#options.dir, `${name}.${n}${ext}`);
  }

  /** Writes one line stamped with the time and its source. Never throws: a full disk must not take the shell down. */
  write(source: LogSource, text: string, now = new Date()): void {
    if (this.#failed) return;
    const line = `${now.toISOString()} [${source}] ${text}\n`;
    try {
      const bytes = Buffer.byteLength(line);
      if (this.#fd === null) this.#open();
      if (this.#size > 0 && this.#size + bytes > this.#options.maxBytes) this.#rotate();
      writeSync(this.#fd!, line);
      this.#size += bytes;
    } catch (err) {
      this.#failed = true;
      process.stderr.write(`Junction shell: cannot write ${this.path}: ${String(err)}\n`);
    }
  }

  /** Returns a function that takes raw output chunks from `source` and writes each complete line. */
  lineWriter(source: Exclude<LogSource, 'shell'>): LineWriter {
    return new LineWriter((line) => this.write(source, line));
  }

  close(): void {
    if (this.#fd === null) return;
    try {
      closeSync(this.#fd);
    } catch {
      // already gone; nothing left to flush with synchronous writes
    }
    this.#fd = null;
  }

  #open(): void {
    mkdirSync(this.#options.dir, { recursive: true });
    this.#fd = openSync(this.path, 'a');
    this.#size = fstatSync(this.#fd).size;
  }

  #rotate(): void {
    this.close();
    const { maxFiles } = this.#options;
    // Closed before renaming: Windows refuses to rename a file that is open.
    rmSync(maxFiles > 1 ? this.rotatedPath(maxFiles - 1) : this.path, { force: true });
    for (let n = maxFiles - 2; n >= 1; n--) renameIfPresent(this.rotatedPath(n), this.rotatedPath(n + 1));
    if (maxFiles > 1) renameIfPresent(this.path, this.rotatedPath(1));
    this.#open();
  }
}

function renameIfPresent(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** Splits a byte stream into lines; keeps a partial last line until the rest arrives or `flush()`. Blank lines are dropped. */
export class LineWriter {
  readonly #emit: (line: string) => void;
  // Decodes across chunk boundaries, so a character split between two chunks is not mangled.
  readonly #decoder = new StringDecoder('utf8');
  #pending = '';

  constructor(emit: (line: string) => void) {
    this.#emit = emit;
  }

  push(chunk: Buffer | string): void {
    this.#pending += typeof chunk === 'string' ? chunk : this.#decoder.write(chunk);
    let newline = this.#pending.indexOf('\n');
    while (newline !== -1) {
      this.#emitLine(this.#pending.slice(0, newline));
      this.#pending = this.#pending.slice(newline + 1);
      newline = this.#pending.indexOf('\n');
    }
    while (this.#pending.length > MAX_LINE_CHARS) {
      this.#emit(this.#pending.slice(0, MAX_LINE_CHARS));
      this.#pending = this.#pending.slice(MAX_LINE_CHARS);
    }
  }

  /** Writes whatever partial line is left (when the stream ends). */
  flush(): void {
    this.#pending += this.#decoder.end();
    this.#emitLine(this.#pending);
    this.#pending = '';
  }

  #emitLine(line: string): void {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    for (let start = 0; start < text.length; start += MAX_LINE_CHARS) this.#emit(text.slice(start, start + MAX_LINE_CHARS));
  }
}
