/**
 * The reports job over a real store and SQLite log: the numbers from the metric buckets, who gets which channels,
 * restarts around 07:00, downtime, Monday's two reports and a week with a clock change. The clock is injected and
 * every "process" is a new job over the same store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { REPORTS_JOB } from '../../service/reports/reports-job.js';
import type { ChannelRecord, NotificationRecord } from '../../service/storage/records.js';
import { htmlRow, reportsFixture, textRow } from './fixture.js';
import type { ReportsFixture } from './fixture.js';

const fixtures: ReportsFixture[] = [];
afterEach(async () => {
  for (const f of fixtures.splice(0)) await f.close();
});

async function nairobi(): Promise<ReportsFixture> {
  const f = await reportsFixture('Africa/Nairobi');
  fixtures.push(f);
  return f;
}

const keys = (records: NotificationRecord[]): string[] => records.map((r) => r.key ?? '').sort();

interface Clinic {
  lab: ChannelRecord;
  pharmacy: ChannelRecord;
}

// Two channels and traffic on Monday 23 and Sunday 29 November 2026 (Nairobi, UTC+3), and the day before the first.
async function clinic(f: ReportsFixture): Promise<Clinic> {
  const lab = await f.channel('Lab results', { txViewAcl: ['lab'] });
  const pharmacy = await f.channel('Pharmacy & <stock>', { txViewAcl: ['pharmacy'] });
  await f.channel('Retired', { status: 'disabled' });
  await f.transaction(lab, '2026-11-23T05:00:00Z', 'Successful', 100);
  await f.transaction(lab, '2026-11-23T06:00:00Z', 'Successful', 300);
  await f.transaction(lab, '2026-11-23T07:00:00Z', 'Failed', 50);
  await f.transaction(lab, '2026-11-23T20:59:59Z', 'Completed with error(s)', 150);
  await f.transaction(pharmacy, '2026-11-23T12:00:00Z', 'Completed', 1000);
  // Sunday 22 November 23:59 in Nairobi: not Monday's.
  await f.transaction(lab, '2026-11-22T20:59:00Z', 'Failed', 10);
  // Sunday 29 November.
  await f.transaction(pharmacy, '2026-11-29T10:00:00Z', 'Successful', 20);
  return { lab, pharmacy };
}

describe('the reports job', () => {
  it('records a daily report with the numbers per channel and in total, in both parts, from the day buckets', async () => {
    const f = await nairobi();
    await clinic(f);
    await f.user('admin@clinic.example', { groups: ['admin'], dailyReport: true });
    await f.runAt('2026-11-24T03:59:00Z'); // 06:59: the first run only notes what is already due
    expect(await f.reports()).toEqual([]);
    await f.runAt('2026-11-24T04:00:00Z'); // 07:00
    const [report, ...others] = await f.reports();
    expect(others).toEqual([]);
    expect(report).toMatchObject({ kind: 'report', method: 'email', to: 'admin@clinic.example', user: 'admin@clinic.example', status: 'pending', subject: 'Daily report for Clinic <North>', key: 'report:daily:2026-11-23:admin@clinic.example' });
    expect(report?.report).toEqual({ period: 'daily', from: new Date('2026-11-22T21:00:00Z'), to: new Date('2026-11-23T21:00:00Z') });
    const text = report?.text ?? '';
    const html = report?.html ?? '';
    // total, successful, completed, completed with errors, failed, processing, average ms
    expect(textRow(text, 'Lab results')).toEqual(['4', '2', '0', '1', '1', '0', '150']);
    expect(textRow(text, 'Pharmacy & <stock>')).toEqual(['1', '0', '1', '0', '0', '0', '1000']);
    expect(textRow(text, 'All channels')).toEqual(['5', '2', '1', '1', '1', '0', '320']);
    expect(htmlRow(html, 'Lab results')).toEqual(['Lab results', '4', '2', '0', '1', '1', '0', '150']);
    expect(htmlRow(html, 'Pharmacy &amp; &lt;stock&gt;')).toEqual(['Pharmacy &amp; &lt;stock&gt;', '1', '0', '1', '0', '0', '0', '1000']);
    expect(htmlRow(html, 'All channels')).toEqual(['All channels', '5', '2', '1', '1', '1', '0', '320']);
    // A disabled channel without traffic has no row.
    expect(text).not.toContain('Retired');
    expect(text).toContain('Monday 23 November 2026 00:00 to Tuesday 24 November 2026 00:00 (Africa/Nairobi)');
  });

  it('gives a user only the channels their groups may view', async () => {
    const f = await nairobi();
    await clinic(f);
    await f.user('lab@clinic.example', { groups: ['lab'], dailyReport: true });
    await f.user('none@clinic.example', { groups: ['visitors'], dailyReport: true });
    await f.runAt('2026-11-24T03:00:00Z');
    await f.runAt('2026-11-24T04:01:00Z');
    const lab = (await f.reports()).find((r) => r.to === 'lab@clinic.example');
    expect(textRow(lab?.text ?? '', 'Lab results')).toEqual(['4', '2', '0', '1', '1', '0', '150']);
    expect(textRow(lab?.text ?? '', 'All channels')).toEqual(['4', '2', '0', '1', '1', '0', '150']);
    for (const body of [lab?.text, lab?.html]) expect(body).not.toMatch(/Pharmacy/);
    const none = (await f.reports()).find((r) => r.to === 'none@clinic.example');
    expect(textRow(none?.text ?? '', 'All channels')).toEqual(['0', '0', '0', '0', '0', '0', '0']);
    expect(none?.text).toContain('No channel you may view');
  });

  it('sends to users who asked, by kind, and to nobody without an email address', async () => {
    const f = await nairobi();
    await clinic(f);
    await f.user('daily@clinic.example', { groups: ['admin'], dailyReport: true, weeklyReport: false });
    await f.user('weekly@clinic.example', { groups: ['admin'], weeklyReport: true });
    await f.user('neither@clinic.example', { groups: ['admin'], dailyReport: false });
    await f.user('', { groups: ['admin'], dailyReport: true, weeklyReport: true });
    await f.runAt('2026-11-30T03:00:00Z');
    await f.runAt('2026-11-30T04:00:00Z'); // Monday 07:00
    expect(keys(await f.reports())).toEqual(['report:daily:2026-11-29:daily@clinic.example', 'report:weekly:2026-11-23:weekly@clinic.example']);
  });

  it('on Monday at 07:00 records the daily report for Sunday and the weekly one for the week, each with its numbers', async () => {
    const f = await nairobi();
    await clinic(f);
    await f.user('admin@clinic.example', { groups: ['admin'], dailyReport: true, weeklyReport: true });
    await f.runAt('2026-11-24T03:59:00Z');
    await f.runAt('2026-11-30T04:00:00Z');
    const reports = await f.reports();
    expect(keys(reports)).toEqual(['report:daily:2026-11-29:admin@clinic.example', 'report:weekly:2026-11-23:admin@clinic.example']);
    const daily = reports.find((r) => r.report?.period === 'daily');
    const weekly = reports.find((r) => r.report?.period === 'weekly');
    expect(daily?.subject).toBe('Daily report for Clinic <North>');
    expect(textRow(daily?.text ?? '', 'Lab results')).toEqual(['0', '0', '0', '0', '0', '0', '0']);
    expect(textRow(daily?.text ?? '', 'All channels')).toEqual(['1', '1', '0', '0', '0', '0', '20']);
    expect(weekly?.subject).toBe('Weekly report for Clinic <North>');
    expect(weekly?.report).toEqual({ period: 'weekly', from: new Date('2026-11-22T21:00:00Z'), to: new Date('2026-11-29T21:00:00Z') });
    expect(textRow(weekly?.text ?? '', 'Pharmacy & <stock>')).toEqual(['2', '1', '1', '0', '0', '0', '510']);
    expect(textRow(weekly?.text ?? '', 'All channels')).toEqual(['6', '3', '1', '1', '1', '0', '270']);
    expect(htmlRow(weekly?.html ?? '', 'All channels')).toEqual(['All channels', '6', '3', '1', '1', '1', '0', '270']);
    expect(weekly?.text).toContain('Monday 23 November 2026 00:00 to Monday 30 November 2026 00:00 (Africa/Nairobi)');
  });

  it('records the report once across a restart at 07:00, and again once after a crash before the state was saved', async () => {
    const f = await nairobi();
    await clinic(f);
    await f.user('a@clinic.example', { groups: ['admin'], dailyReport: true });
    await f.user('b@clinic.example', { groups: ['lab'], dailyReport: true });
    await f.runAt('2026-11-23T07:00:00Z'); // yesterday, an earlier process
    await f.runAt('2026-11-24T03:59:00Z'); // job A at 06:59: nothing due
    expect(await f.reports()).toEqual([]);
    // A stops; job B, a new process over the same store, starts at 07:03.
    await f.runAt('2026-11-24T04:03:00Z');
    expect(keys(await f.reports())).toEqual(['report:daily:2026-11-23:a@clinic.example', 'report:daily:2026-11-23:b@clinic.example']);
    await f.runAt('2026-11-24T04:04:00Z');
    await f.job().run();
    expect(await f.reports()).toHaveLength(2);
    // A crash after the emails were recorded but before the job's state was saved: the next run finds the period
    // not done, and the keys keep it to one email each.
    const state = await f.store.jobStates.findOne({ name: REPORTS_JOB });
    expect(state?.data).toMatchObject({ daily: '2026-11-23' });
    await f.store.jobStates.updateById(state?._id ?? '', { set: { data: { daily: '2026-11-22' } } });
    await f.runAt('2026-11-24T04:05:00Z');
    expect(await f.reports()).toHaveLength(2);
    expect((await f.store.jobStates.findOne({ name: REPORTS_JOB }))?.data).toMatchObject({ daily: '2026-11-23' });
  });

  it('after being off since yesterday, starting at 09:00 records exactly one daily report, for yesterday', async () => {
    const f = await nairobi();
    await clinic(f);
    await f.user('a@clinic.example', { groups: ['admin'], dailyReport: true });
    await f.runAt('2026-11-23T03:00:00Z');
    await f.runAt('2026-11-23T04:00:00Z'); // Monday 07:00: Sunday's report
    await f.runAt('2026-11-23T12:00:00Z'); // last run before the machine went off
    await f.runAt('2026-11-24T06:00:00Z'); // Tuesday 09:00
    expect(keys(await f.reports())).toEqual(['report:daily:2026-11-22:a@clinic.example', 'report:daily:2026-11-23:a@clinic.example']);
  });

  it('after a week off sends one daily and one weekly report, not one per missed period', async () => {
    const f = await nairobi();
    await clinic(f);
    await f.user('a@clinic.example', { groups: ['admin'], dailyReport: true, weeklyReport: true });
    await f.runAt('2026-11-21T12:00:00Z');
    await f.runAt('2026-12-02T06:00:00Z'); // Wednesday 2 December, 09:00
    expect(keys(await f.reports())).toEqual(['report:daily:2026-12-01:a@clinic.example', 'report:weekly:2026-11-23:a@clinic.example']);
  });

  it('sends nothing while reports are off, and does not send those periods later', async () => {
    const f = await nairobi();
    await clinic(f);
    await f.user('a@clinic.example', { groups: ['admin'], dailyReport: true });
    await f.runAt('2026-11-24T03:00:00Z');
    await f.runAt('2026-11-24T04:00:00Z', { enabled: false });
    await f.runAt('2026-11-24T05:00:00Z');
    expect(await f.reports()).toEqual([]);
    await f.runAt('2026-11-25T04:00:00Z');
    expect(keys(await f.reports())).toEqual(['report:daily:2026-11-24:a@clinic.example']);
  });

  it('spans a week with a clock change by its real length (169 hours in London, October 2026)', async () => {
    const f = await reportsFixture('Europe/London');
    fixtures.push(f);
    const ward = await f.channel('Ward');
    await f.transaction(ward, '2026-10-18T22:30:00Z', 'Failed', 10); // Sunday 23:30 BST: the week before
    await f.transaction(ward, '2026-10-18T23:30:00Z', 'Successful', 100); // Monday 00:30 BST: first hour of the week
    await f.transaction(ward, '2026-10-25T00:30:00Z', 'Successful', 200); // Sunday 01:30 BST, before the change
    await f.transaction(ward, '2026-10-25T01:30:00Z', 'Successful', 300); // Sunday 01:30 GMT, after it
    await f.transaction(ward, '2026-10-25T23:30:00Z', 'Completed', 400); // Sunday 23:30 GMT: last hour of the week
    await f.transaction(ward, '2026-10-26T00:30:00Z', 'Failed', 10); // Monday 00:30 GMT: the next week
    await f.user('a@clinic.example', { groups: ['admin'], dailyReport: true, weeklyReport: true });
    await f.runAt('2026-10-26T06:59:00Z');
    await f.runAt('2026-10-26T07:00:00Z'); // Monday 07:00 GMT
    const reports = await f.reports();
    const weekly = reports.find((r) => r.report?.period === 'weekly');
    const daily = reports.find((r) => r.report?.period === 'daily');
    expect(weekly?.report).toEqual({ period: 'weekly', from: new Date('2026-10-18T23:00:00Z'), to: new Date('2026-10-26T00:00:00Z') });
    expect(textRow(weekly?.text ?? '', 'Ward')).toEqual(['4', '3', '1', '0', '0', '0', '250']);
    expect(weekly?.text).toContain('Monday 19 October 2026 00:00 to Monday 26 October 2026 00:00 (Europe/London; 169 hours, as clocks changed)');
    expect(daily?.report).toEqual({ period: 'daily', from: new Date('2026-10-24T23:00:00Z'), to: new Date('2026-10-26T00:00:00Z') });
    expect(textRow(daily?.text ?? '', 'Ward')).toEqual(['3', '2', '1', '0', '0', '0', '300']);
  });
});
