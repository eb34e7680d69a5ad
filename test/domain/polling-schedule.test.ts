import { describe, expect, it } from 'vitest';
import { parsePollingSchedule } from '../../service/domain/channels/polling-schedule.js';

describe('parsePollingSchedule', () => {
  it('reads descriptive intervals in seconds, minutes, hours and days', () => {
    expect(parsePollingSchedule('5 minutes')).toEqual({ kind: 'every', ms: 300_000 });
    expect(parsePollingSchedule(' 1 Hour ')).toEqual({ kind: 'every', ms: 3_600_000 });
    expect(parsePollingSchedule('10 seconds')).toEqual({ kind: 'every', ms: 10_000 });
    expect(parsePollingSchedule('2 days')).toEqual({ kind: 'every', ms: 172_800_000 });
  });

  it('reads cron expressions of 5 or 6 fields that node-schedule accepts', () => {
    expect(parsePollingSchedule('*/5 * * * *')).toEqual({ kind: 'cron', expression: '*/5 * * * *' });
    expect(parsePollingSchedule('0  0 7 * * MON')).toEqual({ kind: 'cron', expression: '0 0 7 * * MON' });
  });

  it('refuses everything else', () => {
    for (const bad of ['', '0 minutes', '5 weeks', 'every 5 minutes', '61 * * * *', '* * * *', '* * * * * * *', '0 0 30 2 *', 'a b c d e']) {
      expect(parsePollingSchedule(bad), bad).toBeNull();
    }
  });
});
