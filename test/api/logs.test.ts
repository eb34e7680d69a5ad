import { appendFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../service/logger.js';
import type { ServiceLogger } from '../../service/logger.js';
import type { LogEntry } from '../../service/contracts/logs.js';
import { basic, startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { until } from '../helpers/wait.js';

/** Every line of `/logs` for the query, page after page of `limit`. */
async function allPages(t: TestJunction, admin: string, query: string, limit: number): Promise<LogEntry[]> {
  const all: LogEntry[] = [];
  for (let start = 0; ; start += limit) {
    const res = await t.inject(`/logs?${query}&start=${start}&limit=${limit}`, { headers: { authorization: admin } });
    expect(res.status).toBe(200);
    const page = res.body as LogEntry[];
    all.push(...page);
    if (page.length < limit) return all;
  }
}

describe('GET /logs: Junction\'s own log files', () => {
  let t: TestJunction;
  let log: ServiceLogger;
  let admin: string;
  let logsDir: string;

  beforeAll(async () => {
    const dataDir = await tempDir();
    logsDir = join(dataDir, 'logs');
    // The service's own logger, writing the rotating files as `npm start` does; 1 MB files so a test can fill one.
    log = createLogger({ level: 'debug', fileDir: logsDir, maxSizeMB: 1, maxFiles: 10, stdout: false });
    t = await startJunction({}, { dataDir, logger: log.logger });
    admin = await unlockRoot(t);
  });
  afterAll(async () => {
    await t.destroy();
    await log.close();
  });

  /** Waits until the log files hold a line with this message (the file writer runs in a worker thread). */
  function written(message: string, level = 'debug', since = Date.now() - 60_000): Promise<LogEntry> {
    return until(`the log line "${message}"`, async () => {
      const res = await t.inject(`/logs?level=${level}&from=${since}`, { headers: { authorization: admin } });
      return (res.body as LogEntry[]).find((e) => e.message === message);
    });
  }

  it('answers the lines in OpenHIM\'s shape, oldest first, at the level asked and above', async () => {
    const logger = log.logger.child({ component: 'test' });
    logger.debug({ n: 1 }, 'level test debug');
    logger.info({ n: 2 }, 'level test info');
    logger.warn({ n: 3 }, 'level test warn');
    logger.error({ n: 4, password: 'hunter2-secret' }, 'level test error');
    await written('level test error', 'error');

    const since = `from=${Date.now() - 60_000}`;
    const at = async (level: string) => {
      const res = await t.inject(`/logs?${since}&level=${level}`, { headers: { authorization: admin } });
      expect(res.status).toBe(200);
      return (res.body as LogEntry[]).filter((e) => e.message.startsWith('level test'));
    };
    const debug = await at('debug');
    expect(debug.map((e) => e.message)).toEqual(['level test debug', 'level test info', 'level test warn', 'level test error']);
    expect(debug[3]).toMatchObject({ level: 'error', label: 'junction', meta: { component: 'test', n: 4, password: '[redacted]' } });
    expect(Date.parse(debug[0]!.timestamp)).toBeLessThanOrEqual(Date.parse(debug[3]!.timestamp));
    expect(JSON.stringify(debug)).not.toContain('hunter2-secret');
    // The default level is info.
    const byDefault = ((await t.inject(`/logs?${since}`, { headers: { authorization: admin } })).body as LogEntry[]).filter((e) => e.message.startsWith('level test'));
    expect(byDefault.map((e) => e.level)).toEqual(['info', 'warn', 'error']);
    expect((await at('warn')).map((e) => e.level)).toEqual(['warn', 'error']);
    expect((await at('ERROR')).map((e) => e.level)).toEqual(['error']);
    expect(await at('fatal')).toEqual([]);
    expect((await at('trace')).length).toBe(4);
  });

  it('keeps to the window from..until', async () => {
    log.logger.info('window before');
    const before = await written('window before');
    log.logger.info('window inside');
    const inside = await written('window inside');
    log.logger.info('window after');
    const after = await written('window after');
    const from = Date.parse(before.timestamp) + 1;
    const untilMs = Date.parse(after.timestamp) - 1;
    // The three may share a millisecond; the window is only testable when they do not.
    if (from > Date.parse(inside.timestamp) || untilMs < Date.parse(inside.timestamp)) return;
    const res = await t.inject(`/logs?from=${new Date(from).toISOString()}&until=${untilMs}`, { headers: { authorization: admin } });
    const messages = (res.body as LogEntry[]).map((e) => e.message).filter((m) => m.startsWith('window'));
    expect(messages).toEqual(['window inside']);
  });

  it('pages through a file rotated for size without losing or repeating a line, and finds a window inside a big file', async () => {
    // About 1.3 MB of lines: pino-roll starts a second file after the first megabyte.
    const padding = 'x'.repeat(300);
    const count = 4000;
    const from = Date.now();
    for (let seq = 0; seq < count; seq++) log.logger.info({ seq, padding }, 'rotation line');
    await written('rotation line', 'info');
    await until('the last rotation line', async () => {
      const res = await t.inject(`/logs?from=${from - 1000}&start=${count - 1}&limit=1000`, { headers: { authorization: admin } });
      return (res.body as LogEntry[]).some((e) => e.meta.seq === count - 1) ? true : undefined;
    });
    const files = (await readdir(logsDir)).filter((name) => /^junction\.\d{4}-\d{2}-\d{2}\.\d+\.log$/.test(name));
    expect(files.length).toBeGreaterThanOrEqual(2);

    const lines = (await allPages(t, admin, `from=${from - 1000}`, 1000)).filter((e) => e.message === 'rotation line');
    expect(lines.map((e) => e.meta.seq)).toEqual(Array.from({ length: count }, (_, i) => i));

    // A window starting in the middle of the big first file: its first line is the first one at or after `from`.
    const middle = lines[1500]!;
    const fromMiddle = Date.parse(middle.timestamp);
    const res = await t.inject(`/logs?from=${fromMiddle}&limit=1`, { headers: { authorization: admin } });
    const [first] = res.body as LogEntry[];
    expect(Date.parse(first!.timestamp)).toBe(fromMiddle);
    const earliestAtThatTime = lines.find((e) => Date.parse(e.timestamp) === fromMiddle)!;
    expect(first!.meta.seq).toBe(earliestAtThatTime.meta.seq);

    // Newest first, read backwards across both files, pages of 1,000 lose or repeat nothing either.
    const newest = (await allPages(t, admin, `from=${from - 1000}&order=newest&search=rotation%20line`, 1000)).map((e) => e.meta.seq);
    expect(newest).toEqual(Array.from({ length: count }, (_, i) => count - 1 - i));
    // A window ending in the middle of the big first file: its first line is the last one at or before `until`.
    const atMiddle = await t.inject(`/logs?from=${from - 1000}&until=${fromMiddle}&order=newest&search=rotation&limit=1`, { headers: { authorization: admin } });
    const [last] = atMiddle.body as LogEntry[];
    const latestAtThatTime = lines.findLast((e) => Date.parse(e.timestamp) === fromMiddle)!;
    expect(last!.meta.seq).toBe(latestAtThatTime.meta.seq);
  });

  it('answers newest first when asked, paging back from the newest line, and searches before paging', async () => {
    // Not earlier: the test before wrote thousands of lines just now.
    const since = Date.now();
    const logger = log.logger.child({ component: 'test' });
    for (let n = 0; n < 6; n++) logger.info({ n, ward: n % 2 === 0 ? 'Maternity' : 'Paediatrics' }, `order test ${n}`);
    await written('order test 5', 'info', since);
    const page = async (query: string) => {
      const res = await t.inject(`/logs?from=${since}&${query}`, { headers: { authorization: admin } });
      expect(res.status, res.text).toBe(200);
      return (res.body as LogEntry[]).filter((e) => e.message.startsWith('order test')).map((e) => e.meta.n);
    };
    // Without the new parameters the answer is OpenHIM's: oldest first.
    expect(await page('search=order%20test')).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await page('order=newest&search=order%20test')).toEqual([5, 4, 3, 2, 1, 0]);
    expect(await page('order=newest&search=order%20test&start=1&limit=2')).toEqual([4, 3]);
    // The search looks in the details too, in any case, and counts toward paging only the lines it keeps.
    expect(await page('order=newest&search=MATERNITY')).toEqual([4, 2, 0]);
    expect(await page('search=maternity&start=1&limit=1')).toEqual([2]);
    expect(await page('order=newest&search=no%20such%20words')).toEqual([]);
  });

  it("keeps the console's own successful reads out of the default view, and its changes, refusals and failures in it", async () => {
    const since = Date.now();
    expect((await t.inject('/channels', { headers: { authorization: admin } })).status).toBe(200);
    expect((await t.inject('/channels')).status).toBe(401);
    const made = await t.inject('/channels', {
      method: 'POST',
      headers: { authorization: admin },
      json: { name: 'Logged channel', urlPattern: '^/logged$', routes: [{ name: 'up', host: '127.0.0.1', port: 9, primary: true }] },
    });
    expect(made.status, made.text).toBe(201);
    // The last of the three is written: the two before it are too (one writer, in order).
    await until('the POST /channels line', async () => {
      const res = await t.inject(`/logs?from=${since}&search=request%20completed`, { headers: { authorization: admin } });
      return (res.body as LogEntry[]).find((e) => e.meta.method === 'POST' && e.meta.url === '/channels');
    });
    const requests = async (level: string) => {
      const res = await t.inject(`/logs?from=${since}&level=${level}&search=request%20completed`, { headers: { authorization: admin } });
      return (res.body as LogEntry[]).filter((e) => e.meta.url === '/channels').map((e) => `${e.level} ${String(e.meta.method)} ${String(e.meta.statusCode)}`);
    };
    expect(await requests('info')).toEqual(['info GET 401', 'info POST 201']);
    expect(await requests('debug')).toEqual(['debug GET 200', 'info GET 401', 'info POST 201']);
    // One line per request: Fastify's "incoming request" line is gone.
    const incoming = await t.inject(`/logs?from=${since}&level=trace&search=incoming%20request`, { headers: { authorization: admin } });
    expect(incoming.body).toEqual([]);
  });

  it('refuses an unknown order, an over-long search and a search that does not decode with a 400 naming the parameter', async () => {
    for (const [query, named] of [['order=sideways', 'querystring.order'], [`search=${'x'.repeat(201)}`, 'search'], ['search=100%ZZ', 'querystring.search']] as const) {
      const res = await t.inject(`/logs?${query}`, { headers: { authorization: admin } });
      expect(res.status, query).toBe(400);
      expect(res.text, query).toContain(named);
    }
  });

  it('skips a torn last line (a write in progress) instead of failing', async () => {
    const since = Date.now();
    log.logger.info('before the torn line');
    await written('before the torn line', 'info', since);
    const files = (await readdir(logsDir)).filter((name) => name.endsWith('.log'));
    const sizes = await Promise.all(files.map(async (name) => ({ name, mtime: (await stat(join(logsDir, name))).mtimeMs })));
    const current = sizes.sort((a, b) => b.mtime - a.mtime)[0]!.name;
    await appendFile(join(logsDir, current), `{"level":50,"time":${Date.now()},"pid":1,"msg":"torn li`);
    const res = await t.inject(`/logs?from=${since}`, { headers: { authorization: admin } });
    expect(res.status).toBe(200);
    const messages = (res.body as LogEntry[]).map((e) => e.message);
    expect(messages).toContain('before the torn line');
    expect(messages.some((m) => m.startsWith('torn'))).toBe(false);
  });

  it('refuses bad dates, levels and paging with a 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['from=yesterday', 'querystring.from'],
      ['until=2024-13-45T99:00:00Z', 'querystring.until'],
      ['level=loud', 'querystring.level'],
      ['limit=5000', 'limit'],
      ['limit=0', 'limit'],
      ['start=-1', 'start'],
      ['from=2024-05-02T00:00:00Z&until=2024-05-01T00:00:00Z', 'querystring.from'],
      ['colour=red', 'colour'],
    ];
    for (const [query, named] of cases) {
      const res = await t.inject(`/logs?${query}`, { headers: { authorization: admin } });
      expect(res.status, query).toBe(400);
      expect(res.text, query).toContain(named);
    }
  });

  it('is for admins only', async () => {
    const user = { email: 'lee@clinic.example', firstname: 'Lee', surname: 'Clerk', groups: ['clerks'], password: 'lee-password-123' };
    expect((await t.inject('/users', { method: 'POST', headers: { authorization: admin }, json: user })).status).toBe(201);
    expect((await t.inject('/logs', { headers: { authorization: basic(user.email, user.password) } })).status).toBe(403);
    expect((await t.inject('/logs')).status).toBe(401);
  });
});
