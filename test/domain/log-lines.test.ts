import { describe, expect, it } from 'vitest';
import { DEFAULT_LOG_WINDOW_MS, levelName, parseLogLine, parseLogQuery } from '../../service/domain/operations/log-lines.js';

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
});
