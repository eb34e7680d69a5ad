/** The alert job over a real store and SQLite log: rules, maxAlerts, recipients, exact windows, restarts and crashes. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NotificationRecord } from '../../service/storage/records.js';
import { ALERT_JOB_NAME } from '../../service/alerts/alert-job.js';
import { AlertFixture, CONSOLE, ZONE } from './fixture.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const ada = { user: 'ada@clinic.example', method: 'email' as const, maxAlerts: 'no max' as const };

let f: AlertFixture;
beforeEach(async () => {
  f = new AlertFixture();
  await f.open();
  await f.user('ada@clinic.example', '+254700000001');
  await f.user('bob@clinic.example', '+254700000002');
  await f.user('cy@clinic.example');
});
afterEach(async () => {
  await f.destroy();
});

/** Every transaction id reported to one recipient by messages that go out (pending or sent). */
function reported(records: NotificationRecord[], to: string): string[] {
  return records.filter((r) => r.to === to && (r.status === 'pending' || r.status === 'sent')).flatMap((r) => r.alert?.transactionIds ?? []);
}

describe('rules', () => {
  it('alerts on an exact status only, on enabled channels only', async () => {
    const lab = await f.channel('lab', [{ status: '500', users: [ada] }]);
    const off = await f.channel('off', [{ status: '500', users: [ada] }], { status: 'disabled' });
    const job = f.job();
    await job.run();
    f.tick(10_000);
    const hit = await f.finish(lab._id, 500);
    await f.finish(lab._id, 502);
    await f.finish(lab._id, 200);
    await f.finish(off._id, 500);
    f.tick(50_000);
    await job.run();

    const records = await f.alerts();
    expect(records).toHaveLength(1);
    const [record] = records as [NotificationRecord];
    expect(record).toMatchObject({ status: 'pending', method: 'email', to: 'ada@clinic.example', user: 'ada@clinic.example' });
    expect(record.alert).toMatchObject({ channelID: lab._id, channelName: 'lab', condition: 'status', status: '500', count: 1, transactionIds: [hit] });
    expect(record.alert?.window).toEqual({ from: new Date('2026-11-24T08:00:00.000Z'), to: new Date('2026-11-24T08:01:00.000Z') });
  });

  it('alerts on a status class (4xx)', async () => {
    const lab = await f.channel('lab', [{ status: '4xx', users: [ada] }]);
    const job = f.job();
    await job.run();
    f.tick(1000);
    const a = await f.finish(lab._id, 404);
    const b = await f.finish(lab._id, 401);
    await f.finish(lab._id, 500);
    await f.finish(lab._id, 399);
    f.tick(MINUTE);
    await job.run();
    expect((await f.alerts()).map((r) => r.alert?.transactionIds)).toEqual([[a, b]]);
  });

  it('fires a failure-rate rule above the rate over the last hour, not at or below it', async () => {
    const lab = await f.channel('lab', [{ status: '5xx', failureRate: 20, users: [ada] }]);
    const job = f.job();
    await job.run();
    // 08:00-08:01: 1 of 5 failed, 20 %: not above.
    f.tick(1000);
    const first = await f.finish(lab._id, 500);
    for (let i = 0; i < 4; i += 1) await f.finish(lab._id, 200);
    f.tick(MINUTE - 1000);
    await job.run();
    expect(await f.alerts()).toHaveLength(0);

    // 08:01-08:02: 1 more failure of 1: the hour is 2 of 6, 33.3 %: above.
    f.tick(1000);
    const second = await f.finish(lab._id, 503);
    f.tick(MINUTE - 1000);
    await job.run();
    const records = await f.alerts();
    expect(records).toHaveLength(1);
    expect(records[0]?.alert).toMatchObject({ failureRate: 20, count: 2, transactionIds: [second] });
    // The hour is known from the first run's window on.
    expect(records[0]?.alert?.window).toEqual({ from: new Date('2026-11-24T07:59:00.000Z'), to: new Date('2026-11-24T08:02:00.000Z') });
    expect(records[0]?.text).toContain('2 transactions failed with response status 5xx of 6 (33.3 %), above the alert\'s 20 %');
    expect(first).not.toBe(second);

    // Much later the hour holds only successes and one failure of 10: 10 %, not above.
    f.tick(2 * HOUR);
    await job.run();
    f.tick(1000);
    await f.finish(lab._id, 500);
    for (let i = 0; i < 9; i += 1) await f.finish(lab._id, 200);
    f.tick(MINUTE);
    await job.run();
    expect(await f.alerts()).toHaveLength(1);
  });

  it('passes over a transaction named again for the search index (a later write changed its body): its outcome was counted once', async () => {
    const lab = await f.channel('lab', [{ status: '5xx', failureRate: 20, users: [ada] }]);
    const job = f.job();
    await job.run();
    f.tick(1000);
    const failed = await f.finish(lab._id, 500);
    for (let i = 0; i < 4; i += 1) await f.finish(lab._id, 200);
    f.tick(MINUTE - 1000);
    await job.run();
    expect(await f.alerts()).toHaveLength(0);
    // A mediator sends the failed one's response body twice: two `changed` entries, which would make 3 of 7 (42.9 %).
    f.tick(1000);
    for (const name of ['a', 'b']) {
      await f.log.update(failed, { set: { response: { status: 500, headers: {}, timestamp: f.now, body: { path: `2026-11-24/${lab._id}/${name}`, size: 1, receivedBytes: 1, truncated: false } } } });
    }
    expect((await f.log.finishedAfter(0, 100)).filter((e) => e.changed === true)).toHaveLength(2);
    f.tick(MINUTE - 1000);
    await job.run();
    expect(await f.alerts()).toHaveLength(0);
  });

  it('keeps the failure-rate history across a restart', async () => {
    const lab = await f.channel('lab', [{ status: '500', failureRate: 50, users: [ada] }]);
    await f.job().run();
    f.tick(1000);
    for (let i = 0; i < 3; i += 1) await f.finish(lab._id, 200);
    f.tick(MINUTE);
    await f.job().run();
    await f.close();
    await f.open();
    // Two failures alone would be 100 %; with the three successes kept, 2 of 5 is 40 %: not above 50.
    f.tick(1000);
    await f.finish(lab._id, 500);
    await f.finish(lab._id, 500);
    f.tick(MINUTE);
    await f.job().run();
    expect(await f.alerts()).toHaveLength(0);
  });

  it('alerts on the last allowed automatic retry that failed', async () => {
    const retrying = { autoRetryEnabled: true, autoRetryMaxAttempts: 2, autoRetryPeriodMinutes: 1 };
    const lab = await f.channel('lab', [{ condition: 'auto-retry-max-attempted', users: [ada] }], retrying);
    const job = f.job();
    await job.run();
    f.tick(1000);
    await f.finish(lab._id, 500, { autoRetryAttempt: 0, autoRetry: true });
    await f.finish(lab._id, 500, { autoRetryAttempt: 1, autoRetry: true });
    const last = await f.finish(lab._id, 500, { autoRetryAttempt: 2, status: 'Failed', noResponse: true });
    await f.finish(lab._id, 200, { autoRetryAttempt: 2 });
    f.tick(MINUTE);
    await job.run();
    const records = await f.alerts();
    expect(records.map((r) => r.alert?.transactionIds)).toEqual([[last]]);
    expect(records[0]?.alert).toMatchObject({ condition: 'auto-retry-max-attempted', count: 1 });
    expect(records[0]?.alert?.status).toBeUndefined();
    expect(records[0]?.text).toContain('1 transaction was retried automatically 2 times and still failed');
  });
});

describe('maxAlerts', () => {
  it('no max: every run with matches sends', async () => {
    const lab = await f.channel('lab', [{ status: '500', users: [ada] }]);
    const job = f.job();
    await job.run();
    for (let i = 0; i < 3; i += 1) {
      f.tick(1000);
      await f.finish(lab._id, 500);
      f.tick(MINUTE - 1000);
      await job.run();
    }
    expect((await f.alerts()).map((r) => r.status)).toEqual(['pending', 'pending', 'pending']);
  });

  it('1 per hour: holds within the hour, then sends with the held transactions', async () => {
    const lab = await f.channel('lab', [{ status: '500', users: [{ ...ada, maxAlerts: '1 per hour' }] }]);
    const job = f.job();
    await job.run();
    f.tick(1000);
    const a = await f.finish(lab._id, 500);
    f.tick(MINUTE - 1000);
    await job.run(); // 08:01 sent
    f.tick(30 * MINUTE);
    const b = await f.finish(lab._id, 500);
    f.tick(MINUTE);
    await job.run(); // 08:32 held
    let records = await f.alerts();
    expect(records.map((r) => r.status)).toEqual(['pending', 'held']);
    expect(records[1]?.alert?.transactionIds).toEqual([b]);
    expect(records[1]?.lastError).toMatch(/1 per hour.*next allowed at 2026-11-24T09:01:00.000Z/);
    expect(records[1]?.text).toBeUndefined();

    f.tick(29 * MINUTE);
    const c = await f.finish(lab._id, 500);
    f.tick(MINUTE);
    await job.run(); // 09:02: the hour since 08:01 is over
    records = await f.alerts();
    expect(records.map((r) => r.status)).toEqual(['pending', 'held', 'pending']);
    expect(records[2]?.alert?.transactionIds).toEqual([b, c]);
    // The message reports the span from the held window's start.
    expect(records[2]?.alert?.window.from).toEqual(new Date('2026-11-24T08:01:00.000Z'));
    expect(records[2]?.text).toContain('2 transactions failed');
    expect(reported(records, ada.user)).toEqual([a, b, c]);
  });

  it('1 per day: holds until the next day in the configured zone', async () => {
    // 20:00 UTC is 23:00 in Nairobi.
    f.now = new Date('2026-11-24T20:00:00.000Z');
    const lab = await f.channel('lab', [{ status: '500', users: [{ ...ada, maxAlerts: '1 per day' }] }]);
    const job = f.job();
    await job.run();
    f.tick(1000);
    const a = await f.finish(lab._id, 500);
    f.tick(MINUTE - 1000);
    await job.run();
    f.tick(30 * MINUTE);
    const b = await f.finish(lab._id, 500);
    f.tick(MINUTE);
    await job.run(); // 23:32 Nairobi: held
    f.tick(20 * MINUTE);
    await job.run(); // nothing new: no record
    expect((await f.alerts()).map((r) => r.status)).toEqual(['pending', 'held']);
    f.tick(10 * MINUTE); // 00:02 Nairobi, the next day
    const c = await f.finish(lab._id, 500);
    f.tick(MINUTE);
    await job.run();
    const records = await f.alerts();
    expect(records.map((r) => r.status)).toEqual(['pending', 'held', 'pending']);
    expect(records[2]?.alert?.transactionIds).toEqual([b, c]);
    expect(reported(records, ada.user)).toEqual([a, b, c]);
  });
});

describe('recipients', () => {
  it('reaches a group and a user, once per person and method', async () => {
    const team = await f.group('lab team', [
      { user: 'ada@clinic.example', method: 'email', maxAlerts: '1 per day' },
      { user: 'bob@clinic.example', method: 'email', maxAlerts: 'no max' },
      { user: 'bob@clinic.example', method: 'sms', maxAlerts: 'no max' },
    ]);
    const lab = await f.channel('lab', [{ status: '500', users: [{ ...ada, user: 'ADA@clinic.example' }], groups: [team] }]);
    const job = f.job();
    await job.run();
    f.tick(1000);
    const id = await f.finish(lab._id, 500);
    f.tick(MINUTE);
    await job.run();
    const records = await f.alerts();
    expect(records.map((r) => `${r.method} ${r.to}`).sort()).toEqual(['email ada@clinic.example', 'email bob@clinic.example', 'sms +254700000002']);
    const sms = records.find((r) => r.method === 'sms');
    expect(sms?.sms).toMatch(/^Junction alert \(Clinic A\): status 500 on lab, 1 transaction, /);
    expect(sms?.text).toBeUndefined();
    expect(sms?.alert?.transactionIds).toEqual([id]);
    // Ada is in both with different limits: the more frequent (no max) wins, so a second run sends again.
    f.tick(1000);
    await f.finish(lab._id, 500);
    f.tick(MINUTE);
    await job.run();
    expect((await f.alerts({ to: 'ada@clinic.example' })).map((r) => r.status)).toEqual(['pending', 'pending']);
  });

  it('records a failed alert, with the reason, for an unknown user and for SMS without a number, once per transaction', async () => {
    const lab = await f.channel('lab', [
      {
        status: '500',
        users: [
          { user: 'ghost@clinic.example', method: 'email', maxAlerts: 'no max' },
          { user: 'cy@clinic.example', method: 'sms', maxAlerts: 'no max' },
          ada,
        ],
      },
    ]);
    const job = f.job();
    await job.run();
    f.tick(1000);
    const id = await f.finish(lab._id, 500);
    f.tick(MINUTE);
    await job.run();
    const failed = await f.alerts({ status: 'failed' });
    expect(failed.map((r) => [r.method, r.to, r.user, r.lastError])).toEqual([
      ['email', 'ghost@clinic.example', 'ghost@clinic.example', 'ghost@clinic.example is not a user'],
      ['sms', '', 'cy@clinic.example', 'cy@clinic.example has no mobile number (msisdn) for SMS alerts'],
    ]);
    for (const record of failed) expect(record.alert?.transactionIds).toEqual([id]);
    expect(await f.alerts({ status: 'pending' })).toHaveLength(1);
  });
});

describe('exact windows', () => {
  it('puts every transaction in exactly one alert, including one committed at a run\'s instant and one committed late', async () => {
    const lab = await f.channel('lab', [{ status: '500', users: [ada] }]);
    const job = f.job();
    await job.run();
    const ids: string[] = [];
    for (let run = 0; run < 5; run += 1) {
      f.tick(1000);
      ids.push(await f.finish(lab._id, 500));
      f.tick(59_000);
      // Committed exactly at the run's now: it belongs to the next window.
      ids.push(await f.finish(lab._id, 500));
      await job.run();
    }
    // The log's clock runs ahead of the job's: this entry is committed after the next run's now, so it waits for the
    // run after, and the reading stops there: the one committed after it waits too, in commit order.
    f.logNow = new Date(f.now.getTime() + 45_000);
    const ahead = await f.finish(lab._id, 500);
    f.logNow = undefined;
    const behind = await f.finish(lab._id, 500);
    f.tick(30_000);
    await job.run();
    expect(reported(await f.alerts(), ada.user)).toEqual(ids);
    f.tick(30_000);
    await job.run();
    const all = reported(await f.alerts(), ada.user);
    expect(all).toEqual([...ids, ahead, behind]);
    expect(new Set(all).size).toBe(all.length);
  });

  it('does not alert what finished before the first run\'s window', async () => {
    const lab = await f.channel('lab', [{ status: '500', users: [ada] }]);
    await f.finish(lab._id, 500);
    f.tick(10 * MINUTE);
    const recent = await f.finish(lab._id, 500);
    f.tick(1000);
    await f.job().run();
    expect(reported(await f.alerts(), ada.user)).toEqual([recent]);
  });

  it('continues from the saved cursor after a restart', async () => {
    const lab = await f.channel('lab', [{ status: '500', users: [ada] }]);
    await f.job().run();
    f.tick(1000);
    const a = await f.finish(lab._id, 500);
    f.tick(MINUTE);
    await f.job().run();
    f.tick(1000);
    const b = await f.finish(lab._id, 500);
    await f.close();
    // Down for ten minutes; b finished before the stop, c after the start.
    f.tick(10 * MINUTE);
    await f.open();
    const c = await f.finish(lab._id, 500);
    f.tick(1000);
    await f.job().run();
    const records = await f.alerts();
    expect(records.map((r) => r.alert?.transactionIds)).toEqual([[a], [b, c]]);
    expect(records[1]?.alert?.window.from).toEqual(new Date('2026-11-24T08:01:01.000Z'));
    const state = await f.store.jobStates.findOne({ name: ALERT_JOB_NAME });
    expect(state?.data.lastEnd).toBe(f.now.toISOString());
  });

  it('alerts no one twice when it stops between recording the messages and saving its cursor', async () => {
    const team = await f.group('team', [{ user: 'bob@clinic.example', method: 'email', maxAlerts: '1 per hour' }]);
    const lab = await f.channel('lab', [{ status: '500', users: [ada, { user: 'ghost@clinic.example', method: 'email', maxAlerts: 'no max' }], groups: [team] }]);
    await f.job().run();
    // Bob used his hour already, so his part of the next run is held.
    f.tick(1000);
    const first = await f.finish(lab._id, 500);
    f.tick(MINUTE);
    await f.job().run();

    f.tick(1000);
    const a = await f.finish(lab._id, 500);
    f.tick(MINUTE);
    const jobStates = f.store.jobStates;
    const crashing = { ...jobStates, name: jobStates.name, findOne: jobStates.findOne.bind(jobStates), insert: jobStates.insert.bind(jobStates), updateById: () => Promise.reject(new Error('the process died here')) } as unknown as typeof jobStates;
    await expect(f.job({ jobStates: crashing }).run()).rejects.toThrow(/died/);
    const afterCrash = await f.alerts();

    // The next run reads the same entries again, plus a new one.
    f.tick(1000);
    const b = await f.finish(lab._id, 500);
    f.tick(MINUTE);
    await f.job().run();
    const records = await f.alerts();
    expect(reported(records, ada.user)).toEqual([first, a, b]);
    // Held and failed records name each transaction once.
    const held = records.filter((r) => r.to === 'bob@clinic.example' && r.status === 'held').flatMap((r) => r.alert?.transactionIds);
    expect(held).toEqual([a, b]);
    const failed = records.filter((r) => r.status === 'failed').flatMap((r) => r.alert?.transactionIds);
    expect(failed).toEqual([first, a, b]);
    expect(records.length).toBe(afterCrash.length + 3);
  });
});

describe('the message', () => {
  it('names the rule, the channel, the window with its zone and the count, and links into the console', async () => {
    const lab = await f.channel('Lab <results>', [{ status: '500', users: [ada] }], { timeout: 30_000 });
    const job = f.job();
    await job.run();
    f.tick(1000);
    const a = await f.finish(lab._id, 500);
    const b = await f.finish(lab._id, 500);
    f.tick(MINUTE - 1000);
    await job.run();
    const [record] = await f.alerts();
    expect(record?.subject).toBe('Junction alert (Clinic A): status 500 on Lab <results>');
    expect(record?.text).toContain('Junction alert: status 500');
    expect(record?.text).toContain('Channel: Lab <results> on Clinic A');
    // 08:00 to 08:01 UTC is 11:00 to 11:01 in Nairobi.
    expect(record?.text).toContain(`From 2026-11-24 11:00 to 11:01 (${ZONE}): 2 transactions failed with response status 500.`);
    expect(record?.text).toContain(`${CONSOLE}/#/transactions/${a}`);
    expect(record?.text).toContain(`${CONSOLE}/#/transactions/${b}`);
    // The list link starts a channel timeout before the window, so requests that arrived earlier are listed.
    expect(record?.text).toContain(`${CONSOLE}/#/transactions?channel=${lab._id}&response=500&from=2026-11-24T07%3A59%3A30.000Z&to=2026-11-24T08%3A00%3A59.999Z`);
    expect(record?.html).toContain('Lab &lt;results&gt;');
    expect(record?.html).toContain(`<a href="${CONSOLE}/#/transactions/${a}">`);
  });
});
