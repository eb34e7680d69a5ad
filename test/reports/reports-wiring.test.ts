/** The reports job runs in a started Junction: at start it notes the periods already due, in the configured zone. */
import { afterEach, describe, expect, it } from 'vitest';
import { duePeriods } from '../../service/domain/alerts/reports.js';
import { REPORTS_JOB } from '../../service/reports/reports-job.js';
import { startJunction } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { until } from '../helpers/wait.js';

let running: TestJunction | undefined;
afterEach(async () => {
  await running?.destroy();
  running = undefined;
});

describe('the reports job in Junction', () => {
  it('runs at start, in the timeZone setting', async () => {
    running = await startJunction({ timeZone: 'Pacific/Auckland' });
    const state = await until('the reports job state', async () => (await running?.junction.store.jobStates.findOne({ name: REPORTS_JOB })) ?? undefined);
    const expected = Object.fromEntries(duePeriods(state.updated, 'Pacific/Auckland').map((p) => [p.kind, p.startDate]));
    expect(state.data).toEqual(expected);
  });
});
