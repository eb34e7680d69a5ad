/** The backup settings: a schedule is a cron expression or an interval, anything else stops the start naming the key. */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../service/config/index.js';

describe('backup settings', () => {
  it('are off by default: no folder, 02:00 daily, seven kept', () => {
    expect(resolveConfig({ env: {} }).config.backup).toEqual({ folder: '', schedule: '0 2 * * *', keep: 7 });
  });

  it('take a cron expression or an interval from the environment', () => {
    const { config } = resolveConfig({ env: { JUNCTION_BACKUP_FOLDER: '/srv/backups', JUNCTION_BACKUP_SCHEDULE: '12 hours', JUNCTION_BACKUP_KEEP: '30' } });
    expect(config.backup).toEqual({ folder: '/srv/backups', schedule: '12 hours', keep: 30 });
  });

  it('refuse a schedule that is neither, and a keep of zero', () => {
    expect(() => resolveConfig({ file: { backup: { schedule: 'nightly' } }, env: {} })).toThrow(/backup\.schedule: "nightly" is neither a cron expression/);
    expect(() => resolveConfig({ file: { backup: { keep: 0 } }, env: {} })).toThrow(/backup\.keep/);
  });
});
