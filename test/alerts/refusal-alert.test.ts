/**
 * The "refusals on a channel" alert (issue 35): the alert job counts a channel's refusals from the refusal log (through
 * the recorder, which writes what it holds first), fires once per window with the count, links the console's Refused
 * list, keeps quiet when nothing was refused, never counts a minute twice across runs, and honours maxAlerts.
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RefusalRecorder } from '../../service/refused/recorder.js';
import { SqliteRefusalLog } from '../../service/storage/sqlite/refusal-log.js';
import type { ChannelRecord, NotificationRecord } from '../../service/storage/records.js';
import { AlertFixture, CONSOLE } from './fixture.js';

const MINUTE = 60_000;
const ada = { user: 'ada@clinic.example', method: 'email' as const, maxAlerts: 'no max' as const };

let f: AlertFixture;
let log: SqliteRefusalLog;
let recorder: RefusalRecorder;

beforeEach(async () => {
  f = new AlertFixture();
  await f.open();
  await f.user('ada@clinic.example', '+254700000001');
  log = new SqliteRefusalLog({ file: join(f.dir, 'refusals.sqlite') });
  await log.open();
  recorder = new RefusalRecorder({ log, logger: pino({ level: 'silent' }), flushIntervalMs: 3_600_000, maxPendingRows: 1000, now: () => f.now.getTime() });
});
afterEach(async () => {
  await log.close();
  await f.destroy();
});

function refuse(channel: ChannelRecord, times: number, address = '10.0.0.5'): void {
  for (let i = 0; i < times; i++) recorder.refusedWith({ code: 'CLIENT_NOT_AUTHORISED', message: `address ${address} may not use channel ${channel.name}` }, { listener: `channel:${channel.name}`, port: 2575, address, channelId: channel._id, channelName: channel.name });
}

describe('refusals on a channel', () => {
  it('fires with the count of the minutes the window covers, links the Refused list, and stays quiet after', async () => {
    const lab = await f.channel('lab', [{ condition: 'refusals', users: [ada] }]);
    const quiet = await f.channel('quiet', [{ condition: 'refusals', users: [ada] }]);
    const job = f.job({ refusals: recorder });
    await job.run();
    f.tick(10_000);
    refuse(lab, 3);
    refuse(lab, 2, '10.0.0.6');
    // Refused on a channel with no refusal rule: counted there, alerted nowhere.
    refuse(await f.channel('other', []), 4);
    f.tick(MINUTE);
    await job.run();

    const records = await f.alerts();
    expect(records).toHaveLength(1);
    const [record] = records as [NotificationRecord];
    expect(record).toMatchObject({ status: 'pending', method: 'email', to: 'ada@clinic.example' });
    expect(record.alert).toMatchObject({ channelID: lab._id, channelName: 'lab', condition: 'refusals', count: 5 });
    expect(record.subject).toBe('Junction alert (Clinic A): refused requests on lab');
    expect(record.text).toContain('5 requests or messages were refused');
    expect(record.text).toContain(`${CONSOLE}/#/refusals?channel=${lab._id}`);
    expect(records.some((r) => r.alert?.channelID === quiet._id)).toBe(false);

    // Nothing new: no second alert; the minute already counted is not counted again.
    f.tick(MINUTE);
    await job.run();
    expect(await f.alerts()).toHaveLength(1);

    refuse(lab, 1);
    f.tick(MINUTE);
    await job.run();
    const after = await f.alerts();
    expect(after).toHaveLength(2);
    expect(after.map((r) => r.alert?.count).sort()).toEqual([1, 5]);
  });

  it('holds a second alert within the hour for a recipient who asked for one per hour', async () => {
    const lab = await f.channel('lab', [{ condition: 'refusals', users: [{ ...ada, maxAlerts: '1 per hour' }] }]);
    const job = f.job({ refusals: recorder });
    await job.run();
    refuse(lab, 1);
    f.tick(MINUTE);
    await job.run();
    refuse(lab, 1);
    f.tick(MINUTE);
    await job.run();
    const records = await f.alerts();
    expect(records.map((r) => r.status).sort()).toEqual(['held', 'pending']);
  });
});
