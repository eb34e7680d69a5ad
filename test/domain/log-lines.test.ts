import { describe, expect, it } from 'vitest';
import { DEFAULT_LOG_WINDOW_MS, badlyEscapedKeys, levelName, matchesSearch, parseLogLine, parseLogQuery } from '../../service/domain/operations/log-lines.js';
import type { LogEntry } from '../../service/contracts/logs.js';

describe('log lines for GET /logs', () => {
  it('reads a pino line into OpenHIM\'s shape', () => {
    const line = JSON.stringify({ level: 40, time: Date.UTC(2026, 0, 2, 3, 4, 5), pid: 7, component: 'api', msg: 'slow answer', ms: 900 });
    expect(parseLogLine(line)).toEqual({ message: 'slow answer', timestamp: '2026-01-02T03:04:05.000Z', level: 'warn', meta: { pid: 7, component: 'api', ms: 900 }, label: 'junction' });
  });

  it('is not fooled by a torn or foreign line', () => {
    expect(parseLogLine('{"level":30,"time":1,"msg":"hal')).toBeNull();
    expect(parseLogLine('plain text')).toBeNull();
    expect(parseLogLine('[1,2]')).toBeNull();
    expect(parseLogLine('{"msg":"no level"}')).toBeNull();
  });

  it('names custom levels by the less severe neighbour', () => {
    expect(levelName(35)).toBe('info');
    expect(levelName(60)).toBe('fatal');
    expect(levelName(5)).toBe('trace');
  });

  it('defaults to the last five minutes at info, and accepts ISO dates and epoch ms', () => {
    const now = 1_800_000_000_000;
    expect(parseLogQuery({}, now)).toEqual({ ok: true, value: { from: now - DEFAULT_LOG_WINDOW_MS, until: now, minLevel: 30, start: 0, limit: 1000 } });
    const parsed = parseLogQuery({ from: '2026-01-01T00:00:00Z', until: '1767225660000', level: 'Debug', start: 5, limit: 10 }, now);
    expect(parsed).toEqual({ ok: true, value: { from: Date.UTC(2026, 0, 1), until: 1767225660000, minLevel: 20, start: 5, limit: 10 } });
  });

  it('names every bad parameter', () => {
    const parsed = parseLogQuery({ from: 'last week', until: 'soon', level: 'chatty' }, 0);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems.map((p) => p.path)).toEqual(['querystring.until', 'querystring.from', 'querystring.level']);
  });

  it('takes the newest-first order and a search only when asked, so an OpenHIM caller gets the same query as before', () => {
    const now = 1_800_000_000_000;
    const plain = parseLogQuery({ order: '', search: '   ' }, now);
    expect(plain).toEqual({ ok: true, value: { from: now - DEFAULT_LOG_WINDOW_MS, until: now, minLevel: 30, start: 0, limit: 1000 } });
    const asked = parseLogQuery({ order: 'Newest', search: '  Channel Created ' }, now);
    expect(asked).toMatchObject({ ok: true, value: { newestFirst: true, search: 'channel created' } });
    expect(parseLogQuery({ order: 'oldest' }, now)).toEqual(plain);
    const bad = parseLogQuery({ order: 'sideways', search: 'x'.repeat(201) }, now);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problems.map((p) => p.path)).toEqual(['querystring.order', 'querystring.search']);
  });

  it('finds the search text in the message or anywhere in the details, in any case', () => {
    const entry: LogEntry = { message: 'Channel created', timestamp: '2026-01-01T00:00:00.000Z', level: 'info', meta: { component: 'channels', name: 'Lab Results', err: { code: 'ECONNREFUSED' } }, label: 'junction' };
    expect(matchesSearch(entry, undefined)).toBe(true);
    expect(matchesSearch(entry, 'channel created')).toBe(true);
    expect(matchesSearch(entry, 'lab results')).toBe(true);
    expect(matchesSearch(entry, 'econnrefused')).toBe(true);
    expect(matchesSearch(entry, 'pharmacy')).toBe(false);
  });

  it('names the query keys whose percent-escapes do not decode', () => {
    expect(badlyEscapedKeys('search=100%25%20sure&level=info&order=newest')).toEqual([]);
    expect(badlyEscapedKeys('search=%ZZ%FF&level=info&until=a%2')).toEqual(['search', 'until']);
    expect(badlyEscapedKeys('')).toEqual([]);
  });
});
