/** Which report periods are due when, in a zone, across clock changes (domain/alerts/reports.ts). */
import { describe, expect, it } from 'vitest';
import { duePeriods, formatPeriod, latestDuePeriod, periodsToSend } from '../../service/domain/alerts/reports.js';

const iso = (d: Date): string => d.toISOString();
const hours = (p: { from: Date; to: Date }): number => (p.to.getTime() - p.from.getTime()) / 3_600_000;

describe('report periods', () => {
  it('daily: at 07:00 the previous day, midnight to midnight in the zone; at 06:59 still the day before', () => {
    // Tuesday 24 November 2026, 07:00 in Nairobi (UTC+3).
    const at7 = latestDuePeriod('daily', new Date('2026-11-24T04:00:00Z'), 'Africa/Nairobi');
    expect([iso(at7.from), iso(at7.to), at7.startDate, iso(at7.dueAt)]).toEqual(['2026-11-22T21:00:00.000Z', '2026-11-23T21:00:00.000Z', '2026-11-23', '2026-11-24T04:00:00.000Z']);
    const at659 = latestDuePeriod('daily', new Date('2026-11-24T03:59:59.999Z'), 'Africa/Nairobi');
    expect([at659.startDate, iso(at659.dueAt)]).toEqual(['2026-11-22', '2026-11-23T04:00:00.000Z']);
    // Late in the evening it is still yesterday's report.
    expect(latestDuePeriod('daily', new Date('2026-11-24T20:59:00Z'), 'Africa/Nairobi').startDate).toBe('2026-11-23');
  });

  it('weekly: on Monday at 07:00 the previous ISO week, Monday to Monday; before that the week before', () => {
    const monday7 = latestDuePeriod('weekly', new Date('2026-11-23T04:00:00Z'), 'Africa/Nairobi');
    expect([iso(monday7.from), iso(monday7.to), monday7.startDate]).toEqual(['2026-11-15T21:00:00.000Z', '2026-11-22T21:00:00.000Z', '2026-11-16']);
    expect(latestDuePeriod('weekly', new Date('2026-11-23T03:59:00Z'), 'Africa/Nairobi').startDate).toBe('2026-11-09');
    // Any later day of the week: still the week due last Monday.
    expect(latestDuePeriod('weekly', new Date('2026-11-29T20:00:00Z'), 'Africa/Nairobi').startDate).toBe('2026-11-16');
  });

  it('Monday 07:00 has both a daily period (Sunday) and a weekly one', () => {
    const due = duePeriods(new Date('2026-11-30T04:00:00Z'), 'Africa/Nairobi');
    expect(due.map((p) => [p.kind, p.startDate, hours(p)])).toEqual([
      ['daily', '2026-11-29', 24],
      ['weekly', '2026-11-23', 168],
    ]);
  });

  it('a 25-hour day and a 169-hour week when clocks go back (London, 25 October 2026)', () => {
    const now = new Date('2026-10-26T07:00:00Z'); // 07:00 GMT, Monday
    const [daily, weekly] = duePeriods(now, 'Europe/London');
    expect([daily?.startDate, iso(daily?.from ?? new Date(0)), iso(daily?.to ?? new Date(0)), hours(daily ?? { from: now, to: now })]).toEqual(['2026-10-25', '2026-10-24T23:00:00.000Z', '2026-10-26T00:00:00.000Z', 25]);
    expect([weekly?.startDate, iso(weekly?.from ?? new Date(0)), hours(weekly ?? { from: now, to: now })]).toEqual(['2026-10-19', '2026-10-18T23:00:00.000Z', 169]);
    // One minute before 07:00 GMT nothing new is due.
    expect(duePeriods(new Date('2026-10-26T06:59:00Z'), 'Europe/London').map((p) => p.startDate)).toEqual(['2026-10-24', '2026-10-12']);
  });

  it('a 23-hour day when clocks go forward, and the report still at 07:00 on the wall clock', () => {
    // Sunday 29 March 2026: clocks go from 01:00 GMT to 02:00 BST. Its report is due Monday 07:00 BST = 06:00Z.
    const p = latestDuePeriod('daily', new Date('2026-03-30T06:00:00Z'), 'Europe/London');
    expect([p.startDate, iso(p.from), iso(p.to), hours(p), iso(p.dueAt)]).toEqual(['2026-03-29', '2026-03-29T00:00:00.000Z', '2026-03-29T23:00:00.000Z', 23, '2026-03-30T06:00:00.000Z']);
    expect(latestDuePeriod('daily', new Date('2026-03-30T05:59:00Z'), 'Europe/London').startDate).toBe('2026-03-28');
    // On the day of the change itself, 07:00 BST is 06:00Z.
    expect(iso(latestDuePeriod('daily', new Date('2026-03-29T06:00:00Z'), 'Europe/London').dueAt)).toBe('2026-03-29T06:00:00.000Z');
    expect(formatPeriod(p, 'Europe/London')).toBe('Sunday 29 March 2026 00:00 to Monday 30 March 2026 00:00 (Europe/London; 23 hours, as clocks changed)');
  });

  it('sends only the latest due period of each kind not yet done, never older ones', () => {
    const now = new Date('2026-12-02T06:00:00Z'); // Wednesday 09:00 in Nairobi
    expect(periodsToSend(now, 'Africa/Nairobi', { daily: '2026-11-23', weekly: '2026-11-16' }).map((p) => `${p.kind} ${p.startDate}`)).toEqual(['daily 2026-12-01', 'weekly 2026-11-23']);
    expect(periodsToSend(now, 'Africa/Nairobi', { daily: '2026-12-01', weekly: '2026-11-23' })).toEqual([]);
    expect(periodsToSend(now, 'Africa/Nairobi', { daily: '2026-12-01' }).map((p) => p.kind)).toEqual(['weekly']);
  });

  it('names the period with its dates and zone', () => {
    const p = latestDuePeriod('weekly', new Date('2026-11-23T04:00:00Z'), 'Africa/Nairobi');
    expect(formatPeriod(p, 'Africa/Nairobi')).toBe('Monday 16 November 2026 00:00 to Monday 23 November 2026 00:00 (Africa/Nairobi)');
  });
});
