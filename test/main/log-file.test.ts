import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineWriter, LogFile } from '../../main/log-file.js';
import { tempDir } from '../helpers/junction.js';

describe('the shell log file', () => {
  it('stamps each line with the time and its source, creating the folder, and appends to an existing file', async () => {
    const dir = join(await tempDir(), 'logs');
    const log = new LogFile({ dir });
    log.write('shell', 'first', new Date('2025-01-02T03:04:05.678Z'));
    log.close();
    const again = new LogFile({ dir });
    again.write('stderr', 'second', new Date('2025-01-02T03:04:06.000Z'));
    again.close();
    expect(await readFile(join(dir, 'shell.log'), 'utf8')).toBe(
      '2025-01-02T03:04:05.678Z [shell] first\n2025-01-02T03:04:06.000Z [stderr] second\n',
    );
  });

  it('rotates by size and keeps only maxFiles files, newest lines in the current file', async () => {
    const dir = await tempDir();
    const log = new LogFile({ dir, maxBytes: 200, maxFiles: 3 });
    for (let i = 0; i < 40; i++) log.write('stdout', `line ${String(i).padStart(3, '0')} ${'x'.repeat(20)}`);
    log.close();
    expect((await readdir(dir)).sort()).toEqual(['shell.1.log', 'shell.2.log', 'shell.log']);
    for (const name of ['shell.log', 'shell.1.log', 'shell.2.log']) expect((await stat(join(dir, name))).size).toBeLessThanOrEqual(200);
    const current = await readFile(join(dir, 'shell.log'), 'utf8');
    expect(current).toContain('line 039');
    const older = await readFile(join(dir, 'shell.1.log'), 'utf8');
    const oldest = await readFile(join(dir, 'shell.2.log'), 'utf8');
    // Each older file holds the lines just before the next newer one: nothing lost between the kept files.
    const numbers = (text: string) => [...text.matchAll(/line (\d+)/g)].map((m) => Number(m[1]));
    const kept = [...numbers(oldest), ...numbers(older), ...numbers(current)];
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => 40 - kept.length + i));
  });

  it('counts an existing file towards the size limit', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'shell.log'), 'x'.repeat(190));
    const log = new LogFile({ dir, maxBytes: 200, maxFiles: 2 });
    log.write('shell', 'this does not fit');
    log.close();
    expect((await readFile(join(dir, 'shell.1.log'), 'utf8')).length).toBe(190);
    expect(await readFile(join(dir, 'shell.log'), 'utf8')).toContain('this does not fit');
  });

  it('keeps a single capped file when maxFiles is 1', async () => {
    const dir = await tempDir();
    const log = new LogFile({ dir, maxBytes: 100, maxFiles: 1 });
    for (let i = 0; i < 10; i++) log.write('shell', `event ${i} ${'y'.repeat(20)}`);
    log.close();
    expect(await readdir(dir)).toEqual(['shell.log']);
    expect(await readFile(join(dir, 'shell.log'), 'utf8')).toContain('event 9');
  });

  it('does not throw when the folder cannot be written (the shell keeps running)', async () => {
    const parent = await tempDir();
    await writeFile(join(parent, 'file'), '');
    const log = new LogFile({ dir: join(parent, 'file', 'logs') });
    expect(() => log.write('shell', 'lost')).not.toThrow();
  });
});

describe('splitting output into lines', () => {
  it('joins lines split across chunks, including a character split between two chunks', () => {
    const lines: string[] = [];
    const writer = new LineWriter((line) => lines.push(line));
    const text = Buffer.from('héllo wörld\r\nsecond\n\nthird without newline');
    writer.push(text.subarray(0, 2));
    writer.push(text.subarray(2, 9));
    writer.push(text.subarray(9));
    expect(lines).toEqual(['héllo wörld', 'second']);
    writer.flush();
    expect(lines).toEqual(['héllo wörld', 'second', 'third without newline']);
  });

  it('cuts a runaway line into pieces instead of holding it all', () => {
    const lines: string[] = [];
    const writer = new LineWriter((line) => lines.push(line));
    writer.push('z'.repeat(64 * 1024 * 2 + 10));
    expect(lines).toHaveLength(2);
    writer.flush();
    expect(lines.map((l) => l.length)).toEqual([65536, 65536, 10]);
  });
});
