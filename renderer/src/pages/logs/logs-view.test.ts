import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../../../service/contracts/logs';
import { appendNew, metaSummary, prependNew } from './logs-view';

const line = (timestamp: string, message: string): LogEntry => ({ timestamp, message, level: 'info', meta: {}, label: 'junction' });

describe('following new log lines', () => {
  it('appends only lines not already shown, and keeps the newest', () => {
    const shown = [line('2026-01-01T00:00:00.000Z', 'a'), line('2026-01-01T00:00:01.000Z', 'b')];
    const next = appendNew(shown, [line('2026-01-01T00:00:01.000Z', 'b'), line('2026-01-01T00:00:01.000Z', 'c'), line('2026-01-01T00:00:02.000Z', 'd')]);
    expect(next.map((e) => e.message)).toEqual(['a', 'b', 'c', 'd']);
    expect(appendNew(next, [line('2026-01-01T00:00:03.000Z', 'e')], 3).map((e) => e.message)).toEqual(['c', 'd', 'e']);
  });

  it('puts newer lines on top when shown newest first, without repeats, and keeps the newest', () => {
    const shown = [line('2026-01-01T00:00:01.000Z', 'b'), line('2026-01-01T00:00:00.000Z', 'a')];
    const next = prependNew(shown, [line('2026-01-01T00:00:02.000Z', 'd'), line('2026-01-01T00:00:01.000Z', 'c'), line('2026-01-01T00:00:01.000Z', 'b')]);
    expect(next.map((e) => e.message)).toEqual(['d', 'c', 'b', 'a']);
    expect(prependNew(next, [line('2026-01-01T00:00:03.000Z', 'e')], 3).map((e) => e.message)).toEqual(['e', 'd', 'c']);
  });

  it('summarises the details as name=value pairs', () => {
    expect(metaSummary({ pid: 1, component: 'api', status: 404, err: { message: 'x' } })).toBe('component=api status=404 err={"message":"x"}');
  });
});
