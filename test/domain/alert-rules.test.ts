import { describe, expect, it } from 'vitest';
import type { AlertRecipient, ChannelAlert } from '../../service/contracts/channels.js';
import { MAX_CATCH_UP_MINUTES, inWindow, isEmptyWindow, isTimeZone, nextWindow, startOfDay } from '../../service/domain/alerts/alert-window.js';
import type { AlertSend, RecipientGroup, RecipientUser } from '../../service/domain/alerts/alert-rules.js';
import {
  expandRecipients,
  failureRateOf,
  mayAlert,
  notYetAlerted,
  reachedRetryMax,
  reportSpan,
  ruleFires,
  ruleKey,
  ruleProblem,
  statusMatches,
  transactionMatches,
} from '../../service/domain/alerts/alert-rules.js';
import { MAX_LINKED, SMS_MAX_LENGTH, alertMessage, escapeHtml, formatWindow, ruleLabel, transactionListUrl } from '../../service/domain/alerts/alert-message.js';

// The console's own reader of its list URL, so the link is checked against what the list really understands. It
// compiles under the renderer's tsconfig, not the service's, so it is loaded by path when the test runs.
const CONSOLE_FILTERS = '../../renderer/src/data/transaction-filters.ts';
type QueryFromParams = (params: URLSearchParams) => { filters: Record<string, unknown> };
const { queryFromParams } = (await import(/* @vite-ignore */ CONSOLE_FILTERS)) as { queryFromParams: QueryFromParams };

const at = (iso: string): Date => new Date(iso);
const MINUTE = 60_000;

describe('alert windows', () => {
  it('starts the first run pollPeriodMinutes back and ends at now', () => {
    const now = at('2026-11-24T08:00:00Z');
    expect(nextWindow(undefined, now, 1)).toEqual({ from: at('2026-11-24T07:59:00Z'), to: now });
    expect(nextWindow(undefined, now, 5)).toEqual({ from: at('2026-11-24T07:55:00Z'), to: now });
  });

  it('covers time exactly once over consecutive runs, however late each run starts', () => {
    let lastEnd: Date | undefined;
    const runs = ['2026-11-24T08:00:00.000Z', '2026-11-24T08:01:00.250Z', '2026-11-24T08:02:03.999Z', '2026-11-24T08:02:04.000Z', '2026-11-24T08:07:30.000Z'];
    const windows = runs.map((run) => {
      const window = nextWindow(lastEnd, at(run), 1);
      lastEnd = window.to;
      return window;
    });
    for (let i = 1; i < windows.length; i += 1) expect(windows[i]?.from).toEqual(windows[i - 1]?.to);
    // A transaction exactly on a boundary belongs to exactly one window.
    const boundary = at('2026-11-24T08:01:00.250Z');
    expect(windows.filter((w) => inWindow(w, boundary))).toEqual([windows[2]]);
    // Every millisecond between the first start and the last end is in exactly one window.
    for (const t of ['2026-11-24T07:59:00.000Z', '2026-11-24T08:00:00.000Z', '2026-11-24T08:02:03.999Z', '2026-11-24T08:07:29.999Z']) {
      expect(windows.filter((w) => inWindow(w, at(t)))).toHaveLength(1);
    }
    expect(windows.filter((w) => inWindow(w, at('2026-11-24T08:07:30.000Z')))).toHaveLength(0);
  });

  it('covers the whole gap after downtime', () => {
    const window = nextWindow(at('2026-11-24T06:00:00Z'), at('2026-11-24T08:00:00Z'), 1);
    expect(window).toEqual({ from: at('2026-11-24T06:00:00Z'), to: at('2026-11-24T08:00:00Z') });
    expect(window.skipped).toBeUndefined();
  });

  it('caps a gap longer than a day and reports the part it skipped', () => {
    const now = at('2026-11-24T08:00:00Z');
    const window = nextWindow(at('2026-11-20T08:00:00Z'), now, 1);
    expect(MAX_CATCH_UP_MINUTES).toBe(24 * 60);
    expect(window.from).toEqual(at('2026-11-23T08:00:00Z'));
    expect(window.to).toEqual(now);
    expect(window.skipped).toEqual({ from: at('2026-11-20T08:00:00Z'), to: at('2026-11-23T08:00:00Z') });
    // Exactly a day is still covered whole.
    expect(nextWindow(at('2026-11-23T08:00:00Z'), now, 1).skipped).toBeUndefined();
  });

  it('gives an empty window when the clock is at or behind the last end, and resumes from that end', () => {
    const lastEnd = at('2026-11-24T08:00:00Z');
    const back = nextWindow(lastEnd, at('2026-11-24T07:58:00Z'), 1);
    expect(back).toEqual({ from: lastEnd, to: lastEnd });
    expect(isEmptyWindow(back)).toBe(true);
    expect(isEmptyWindow(nextWindow(lastEnd, lastEnd, 1))).toBe(true);
    expect(nextWindow(back.to, at('2026-11-24T08:01:00Z'), 1).from).toEqual(lastEnd);
  });

  it('refuses a poll period that is not positive', () => {
    expect(() => nextWindow(undefined, at('2026-11-24T08:00:00Z'), 0)).toThrow(RangeError);
    expect(() => nextWindow(undefined, at('2026-11-24T08:00:00Z'), Number.NaN)).toThrow(RangeError);
  });

  it('finds the start of the calendar day in a zone, across daylight-saving changes', () => {
    expect(startOfDay(at('2026-11-24T02:30:00Z'), 'Africa/Nairobi')).toEqual(at('2026-11-23T21:00:00Z'));
    expect(startOfDay(at('2026-11-23T20:59:59Z'), 'Africa/Nairobi')).toEqual(at('2026-11-22T21:00:00Z'));
    expect(startOfDay(at('2026-11-24T12:00:00Z'), 'UTC')).toEqual(at('2026-11-24T00:00:00Z'));
    // Europe/London on the day clocks go forward (29 March 2026): midnight is still GMT, +00:00.
    expect(startOfDay(at('2026-03-29T15:00:00Z'), 'Europe/London')).toEqual(at('2026-03-29T00:00:00Z'));
    // And the day after: midnight is BST, 23:00 UTC the evening before.
    expect(startOfDay(at('2026-03-30T15:00:00Z'), 'Europe/London')).toEqual(at('2026-03-29T23:00:00Z'));
    // America/Santiago skips midnight when clocks go forward (6 September 2026): the day starts at 01:00 (-03).
    expect(startOfDay(at('2026-09-06T15:00:00Z'), 'America/Santiago')).toEqual(at('2026-09-06T04:00:00Z'));
    expect(isTimeZone('Africa/Nairobi')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});

const channel = { _id: 'c1', name: 'Lab results', autoRetryEnabled: true, autoRetryMaxAttempts: 3 };

describe('alert rules', () => {
  it('matches exact codes and Nxx ranges, as the transaction filter does', () => {
    expect(statusMatches('500', 500)).toBe(true);
    expect(statusMatches('500', 501)).toBe(false);
    expect(statusMatches('4xx', 404)).toBe(true);
    expect(statusMatches('4XX', 499)).toBe(true);
    expect(statusMatches('4xx', 500)).toBe(false);
  });

  it('classifies transactions for a status rule by their response status', () => {
    const rule = { condition: 'status' as const, status: '5xx' };
    expect(transactionMatches(rule, channel, { responseStatus: 503 })).toBe(true);
    expect(transactionMatches(rule, channel, { responseStatus: 200 })).toBe(false);
    expect(transactionMatches(rule, channel, {})).toBe(false);
  });

  it('classifies transactions for an auto-retry rule by the attempts the channel allows', () => {
    const rule = { condition: 'auto-retry-max-attempted' as const };
    expect(transactionMatches(rule, channel, { autoRetryAttempt: 3, status: 'Failed' })).toBe(true);
    expect(transactionMatches(rule, channel, { autoRetryAttempt: 4, status: 'Completed', autoRetry: true })).toBe(true);
    expect(transactionMatches(rule, channel, { autoRetryAttempt: 2, status: 'Failed' })).toBe(false);
    // Its last retry got through: nothing to alert.
    expect(transactionMatches(rule, channel, { autoRetryAttempt: 3, status: 'Successful' })).toBe(false);
    // 0 or unset means unlimited: never reached. A channel that does not retry never reaches it either.
    expect(reachedRetryMax({ autoRetryEnabled: true, autoRetryMaxAttempts: 0 }, { autoRetryAttempt: 50 })).toBe(false);
    expect(reachedRetryMax({ autoRetryEnabled: true }, { autoRetryAttempt: 50 })).toBe(false);
    expect(reachedRetryMax({ autoRetryEnabled: false, autoRetryMaxAttempts: 3 }, { autoRetryAttempt: 3 })).toBe(false);
  });

  it('fires a status rule without a failure rate on any match', () => {
    const rule = { condition: 'status' as const, status: '500' };
    expect(ruleFires(rule, { total: 1000, matching: 1 })).toBe(true);
    expect(ruleFires(rule, { total: 1000, matching: 0 })).toBe(false);
  });

  it('fires a failure-rate rule only strictly above the rate', () => {
    const rule = { condition: 'status' as const, status: '4xx', failureRate: 20 };
    expect(ruleFires(rule, { total: 10, matching: 3 })).toBe(true);
    expect(ruleFires(rule, { total: 10, matching: 2 })).toBe(false);
    expect(ruleFires(rule, { total: 5, matching: 1 })).toBe(false);
    expect(ruleFires(rule, { total: 0, matching: 0 })).toBe(false);
    expect(ruleFires({ ...rule, failureRate: 0 }, { total: 100, matching: 1 })).toBe(true);
    expect(ruleFires({ ...rule, failureRate: 100 }, { total: 4, matching: 4 })).toBe(false);
    expect(failureRateOf({ total: 3, matching: 1 })).toBe(33.3);
    expect(failureRateOf({ total: 0, matching: 0 })).toBe(0);
  });

  it('fires an auto-retry rule on any transaction that reached the maximum', () => {
    const rule = { condition: 'auto-retry-max-attempted' as const };
    expect(ruleFires(rule, { total: 40, matching: 1 })).toBe(true);
    expect(ruleFires(rule, { total: 40, matching: 0 })).toBe(false);
  });

  it('never fires a rule that cannot be evaluated, and says why', () => {
    expect(ruleFires({ condition: 'status' }, { total: 1, matching: 1 })).toBe(false);
    expect(ruleProblem({ condition: 'status' })).toMatch(/status code/);
    expect(ruleFires({ condition: 'status', status: '6xx' }, { total: 1, matching: 1 })).toBe(false);
    expect(ruleProblem({ condition: 'status', status: '500', failureRate: 120 })).toMatch(/0 to 100/);
    expect(ruleProblem({ condition: 'status', status: '500', failureRate: 20 })).toBeNull();
  });

  it('keys a rule by its channel and content, not its position', () => {
    expect(ruleKey('c1', { condition: 'status', status: '5XX' })).toBe('c1/status/5xx');
    expect(ruleKey('c1', { condition: 'status', status: '4xx', failureRate: 20 })).toBe('c1/status/4xx/over/20');
    expect(ruleKey('c1', { condition: 'auto-retry-max-attempted', status: '500' })).toBe('c1/auto-retry-max-attempted');
    expect(ruleKey('c1', { condition: 'status', status: '500' })).not.toBe(ruleKey('c2', { condition: 'status', status: '500' }));
  });
});

const users = new Map<string, RecipientUser>([
  ['u1', { email: 'amina@clinic.example', msisdn: '+254700000001' }],
  ['u2', { email: 'Ben@Clinic.example', msisdn: null }],
  ['u3', { email: 'chidi@clinic.example', msisdn: '+254700000003' }],
]);
const entry = (user: string, method: AlertRecipient['method'], maxAlerts: AlertRecipient['maxAlerts'] = 'no max'): AlertRecipient => ({ user, method, maxAlerts });

describe('alert recipients', () => {
  const groups = new Map<string, RecipientGroup>([
    ['g1', { _id: 'g1', group: 'Lab team', users: [entry('amina@clinic.example', 'email', '1 per day'), entry('chidi@clinic.example', 'sms', '1 per hour'), entry('ben@clinic.example', 'email')] }],
  ]);

  it('expands users and groups into one de-duplicated list with addresses', () => {
    const rule: Pick<ChannelAlert, 'users' | 'groups'> = { users: [entry('AMINA@clinic.example', 'email', '1 per hour'), entry('amina@clinic.example', 'sms')], groups: ['g1', 'g1'] };
    const { recipients, skipped } = expandRecipients(rule, groups, users);
    expect(recipients).toEqual([
      // Listed directly at 1 per hour and through the group at 1 per day: the more frequent wins.
      { user: 'amina@clinic.example', method: 'email', maxAlerts: '1 per hour', address: 'amina@clinic.example' },
      { user: 'amina@clinic.example', method: 'sms', maxAlerts: 'no max', address: '+254700000001' },
      { user: 'chidi@clinic.example', method: 'sms', maxAlerts: '1 per hour', address: '+254700000003' },
      { user: 'Ben@Clinic.example', method: 'email', maxAlerts: 'no max', address: 'Ben@Clinic.example' },
    ]);
    expect(skipped).toEqual([]);
  });

  it('skips an SMS recipient without a number, an unknown person and an unknown group, each with a reason', () => {
    const rule = { users: [entry('ben@clinic.example', 'sms'), entry('ghost@clinic.example', 'email')], groups: ['g404'] };
    const { recipients, skipped } = expandRecipients(rule, groups, users);
    expect(recipients).toEqual([]);
    expect(skipped).toEqual([
      { user: 'Ben@Clinic.example', method: 'sms', reason: 'Ben@Clinic.example has no mobile number (msisdn) for SMS alerts' },
      { user: 'ghost@clinic.example', method: 'email', reason: 'ghost@clinic.example is not a user' },
      { user: '', group: 'g404', reason: 'contact group g404 does not exist' },
    ]);
  });

  it('adds a group\'s recipients who are not users at their own address, once, with the more frequent limit (issue 35)', () => {
    const vendor = new Map<string, RecipientGroup>([
      ['g3', { _id: 'g3', group: 'Vendor', users: [entry('amina@clinic.example', 'email')], external: [{ address: 'support@vendor.example', method: 'email', maxAlerts: '1 per day' }, { address: '+254711000000', method: 'sms', maxAlerts: 'no max' }, { address: 'Amina@clinic.example', method: 'email', maxAlerts: '1 per hour' }] }],
      ['g4', { _id: 'g4', group: 'IT', users: [], external: [{ address: 'SUPPORT@vendor.example', method: 'email', maxAlerts: '1 per hour' }] }],
    ]);
    const { recipients, skipped } = expandRecipients({ users: [], groups: ['g3', 'g4'] }, vendor, users);
    expect(recipients).toEqual([
      { user: 'amina@clinic.example', method: 'email', maxAlerts: 'no max', address: 'amina@clinic.example' },
      { user: 'support@vendor.example', method: 'email', maxAlerts: '1 per hour', address: 'support@vendor.example' },
      { user: '+254711000000', method: 'sms', maxAlerts: 'no max', address: '+254711000000' },
    ]);
    expect(skipped).toEqual([]);
  });

  it('names the group a skipped member came through', () => {
    const withSms = new Map<string, RecipientGroup>([['g2', { _id: 'g2', group: 'Night shift', users: [entry('ben@clinic.example', 'sms')] }]]);
    expect(expandRecipients({ users: [], groups: ['g2'] }, withSms, users).skipped).toEqual([
      { user: 'Ben@Clinic.example', method: 'sms', group: 'Night shift', reason: 'Ben@Clinic.example has no mobile number (msisdn) for SMS alerts' },
    ]);
  });
});

const KEY = 'c1/status/500';
const send = (iso: string, outcome: AlertSend['outcome'] = 'sent', overrides: Partial<AlertSend> = {}): AlertSend => ({
  ruleKey: KEY,
  user: 'amina@clinic.example',
  method: 'email',
  outcome,
  at: at(iso),
  covered: { from: new Date(at(iso).getTime() - MINUTE), to: at(iso) },
  transactionIds: [],
  ...overrides,
});

describe('maxAlerts', () => {
  const amina = (maxAlerts: AlertRecipient['maxAlerts']) => ({ user: 'amina@clinic.example', method: 'email' as const, maxAlerts });
  const now = at('2026-11-24T10:00:00Z');

  it('always allows no max', () => {
    const sends = [send('2026-11-24T09:59:00Z'), send('2026-11-24T09:58:00Z')];
    expect(mayAlert(amina('no max'), KEY, sends, now, 'UTC')).toEqual({ allowed: true });
  });

  it('allows 1 per hour once per rolling 60 minutes', () => {
    const gate = mayAlert(amina('1 per hour'), KEY, [send('2026-11-24T09:20:00Z')], now, 'UTC');
    expect(gate).toMatchObject({ allowed: false, nextAllowedAt: at('2026-11-24T10:20:00Z') });
    expect(gate.allowed ? '' : gate.reason).toMatch(/1 per hour/);
    // Exactly 60 minutes later it is allowed again; a rolling hour, not the clock hour.
    expect(mayAlert(amina('1 per hour'), KEY, [send('2026-11-24T09:00:00Z')], now, 'UTC')).toEqual({ allowed: true });
    expect(mayAlert(amina('1 per hour'), KEY, [send('2026-11-24T09:00:00.001Z')], now, 'UTC').allowed).toBe(false);
  });

  it('allows 1 per day once per calendar day in the configured zone', () => {
    // 23:30 UTC on the 23rd is 02:30 on the 24th in Nairobi: today there, yesterday in UTC.
    const late = [send('2026-11-23T23:30:00Z')];
    expect(mayAlert(amina('1 per day'), KEY, late, now, 'UTC')).toEqual({ allowed: true });
    const gate = mayAlert(amina('1 per day'), KEY, late, now, 'Africa/Nairobi');
    // Allowed again at the next midnight in Nairobi.
    expect(gate).toMatchObject({ allowed: false, nextAllowedAt: at('2026-11-24T21:00:00Z') });
    expect(gate.allowed ? '' : gate.reason).toBe('amina@clinic.example was already alerted by email at 2026-11-23T23:30:00.000Z and the limit is 1 per day');
    // A send at midnight exactly is today's; one a millisecond before is yesterday's.
    expect(mayAlert(amina('1 per day'), KEY, [send('2026-11-24T00:00:00Z')], now, 'UTC').allowed).toBe(false);
    expect(mayAlert(amina('1 per day'), KEY, [send('2026-11-23T23:59:59.999Z')], now, 'UTC').allowed).toBe(true);
  });

  it('counts only sends that went out, for the same rule, person and method', () => {
    const others = [
      send('2026-11-24T09:50:00Z', 'failed'),
      send('2026-11-24T09:50:00Z', 'held'),
      send('2026-11-24T09:50:00Z', 'sent', { ruleKey: 'c1/status/4xx' }),
      send('2026-11-24T09:50:00Z', 'sent', { method: 'sms' }),
      send('2026-11-24T09:50:00Z', 'sent', { user: 'ben@clinic.example' }),
    ];
    expect(mayAlert(amina('1 per hour'), KEY, others, now, 'UTC')).toEqual({ allowed: true });
    expect(mayAlert(amina('1 per hour'), KEY, [send('2026-11-24T09:50:00Z', 'sent', { user: 'AMINA@clinic.example' })], now, 'UTC').allowed).toBe(false);
  });

  it('reports what maxAlerts held back in the next message, and nothing twice', () => {
    const window = { from: at('2026-11-24T09:59:00Z'), to: now };
    const records = [
      send('2026-11-24T09:05:00Z', 'sent', { covered: { from: at('2026-11-24T09:04:00Z'), to: at('2026-11-24T09:05:00Z') } }),
      send('2026-11-24T09:30:00Z', 'held', { covered: { from: at('2026-11-24T09:29:00Z'), to: at('2026-11-24T09:30:00Z') } }),
      send('2026-11-24T09:40:00Z', 'held', { covered: { from: at('2026-11-24T09:39:00Z'), to: at('2026-11-24T09:40:00Z') } }),
    ];
    const who = amina('1 per hour');
    expect(reportSpan(who, KEY, records, window)).toEqual({ from: at('2026-11-24T09:29:00Z'), to: now });
    // Nothing held since the last send: the window itself.
    expect(reportSpan(who, KEY, records.slice(0, 1), window)).toEqual(window);
    // Held before the last send was already reported by it.
    const sentAfter = [...records, send('2026-11-24T09:45:00Z', 'sent', { covered: { from: at('2026-11-24T09:29:00Z'), to: at('2026-11-24T09:45:00Z') } })];
    expect(reportSpan(who, KEY, sentAfter, window)).toEqual(window);
  });

  it('does not reach back further than the catch-up limit', () => {
    const window = { from: at('2026-11-24T09:59:00Z'), to: now };
    const held = [send('2026-11-20T09:00:00Z', 'held')];
    expect(reportSpan(amina('1 per day'), KEY, held, window)).toEqual({ from: at('2026-11-23T10:00:00Z'), to: now });
  });

  it('leaves out transactions an earlier message to the same person already reported', () => {
    const sends = [send('2026-11-24T09:00:00Z', 'sent', { transactionIds: ['t1', 't2'] }), send('2026-11-24T09:10:00Z', 'failed', { transactionIds: ['t3'] })];
    const who = amina('no max');
    expect(notYetAlerted(['t1', 't3', 't4', 't4'], who, KEY, sends)).toEqual(['t3', 't4']);
    expect(notYetAlerted(['t1'], { ...who, method: 'sms' }, KEY, sends)).toEqual(['t1']);
  });
});

describe('alert messages', () => {
  const window = { from: at('2026-11-24T05:00:00Z'), to: at('2026-11-24T05:05:00Z') };
  const base = {
    rule: { condition: 'status' as const, status: '500' },
    channel: { _id: '64b7f0c2a1b2c3d4e5f60718', name: 'Lab results', autoRetryMaxAttempts: 3 },
    window,
    count: 3,
    transactionIds: ['t1', 't2', 't3'],
    consoleUrl: 'https://junction.clinic.example:9000/',
    timeZone: 'Africa/Nairobi',
  };

  it('labels each kind of rule', () => {
    expect(ruleLabel({ condition: 'status', status: '500' })).toBe('status 500');
    expect(ruleLabel({ condition: 'status', status: '4XX', failureRate: 20 })).toBe('status 4xx at over 20 %');
    expect(ruleLabel({ condition: 'auto-retry-max-attempted' })).toBe('auto-retry max reached');
  });

  it('shows the window in the configured zone and names the zone', () => {
    expect(formatWindow(window, 'Africa/Nairobi')).toBe('2026-11-24 08:00 to 08:05 (Africa/Nairobi)');
    expect(formatWindow({ from: at('2026-11-24T20:59:30Z'), to: at('2026-11-24T21:00:30Z') }, 'Africa/Nairobi')).toBe('2026-11-24 23:59:30 to 2026-11-25 00:00:30 (Africa/Nairobi)');
  });

  it('names the rule, the channel, the window and the count', () => {
    const message = alertMessage(base);
    expect(message.subject).toBe('Junction alert: status 500 on Lab results');
    expect(message.text).toContain('Channel: Lab results');
    // Without their statuses the message does not guess what became of them.
    expect(message.text).toContain('From 2026-11-24 08:00 to 08:05 (Africa/Nairobi): 3 transactions ended with response status 500.');
    expect(message.html).toContain('<h1>Junction alert: status 500</h1>');
    expect(message.html).toContain('3 transactions ended with response status 500');
    expect(message.sms).toBe('Junction alert: status 500 on Lab results, 3 transactions, 2026-11-24 08:00 to 08:05 (Africa/Nairobi)');
  });

  it('says what became of the transactions in the words of their status (issue 33: a Failed one said "completed")', () => {
    expect(alertMessage({ ...base, statuses: { Failed: 3 } }).text).toContain('3 transactions failed with response status 500.');
    expect(alertMessage({ ...base, count: 1, statuses: { 'Completed with error(s)': 1 } }).text).toContain('1 transaction completed with errors and response status 500.');
    expect(alertMessage({ ...base, statuses: { Completed: 3 } }).text).toContain('3 transactions completed with response status 500.');
    const mixed = alertMessage({ ...base, statuses: { Failed: 2, 'Completed with error(s)': 1 } });
    expect(mixed.text).toContain('3 transactions ended with response status 500 (2 failed, 1 completed with errors).');
    expect(mixed.html).toContain('3 transactions ended with response status 500 (2 failed, 1 completed with errors)');
  });

  it('gives the rate and the threshold of a failure-rate rule', () => {
    const message = alertMessage({ ...base, rule: { condition: 'status', status: '4xx', failureRate: 20 }, count: 5, total: 20, failureRate: 25 });
    expect(message.subject).toBe('Junction alert: status 4xx at over 20 % on Lab results');
    expect(message.text).toContain("5 transactions ended with response status 4xx of 20 (25 %), above the alert's 20 %.");
    expect(alertMessage({ ...base, rule: { condition: 'status', status: '4xx', failureRate: 20 }, count: 5, total: 20, failureRate: 25, statuses: { Completed: 2 } }).text).toContain('5 transactions completed with response status 4xx of 20');
    expect(message.sms).toContain('5 transactions (25 %)');
  });

  it('says how often an auto-retried transaction was tried', () => {
    const message = alertMessage({ ...base, rule: { condition: 'auto-retry-max-attempted' }, count: 1, transactionIds: ['t9'] });
    expect(message.text).toContain('1 transaction was retried automatically 3 times and still failed; it will not be retried again.');
    expect(message.sms).toContain('auto-retry max reached on Lab results, 1 transaction,');
  });

  it('links to the console list filtered to the channel, status and window, in the parameters the list reads', () => {
    const url = transactionListUrl({ ...base, requestLeadMs: 30_000 });
    expect(url.startsWith('https://junction.clinic.example:9000/#/transactions?')).toBe(true);
    const query = queryFromParams(new URLSearchParams(url.slice(url.indexOf('?') + 1)));
    expect(query.filters).toMatchObject({ channel: base.channel._id, response: '500', from: '2026-11-24T04:59:30.000Z', to: '2026-11-24T05:04:59.999Z' });
    const message = alertMessage(base);
    expect(message.text).toContain(transactionListUrl(base));
    expect(message.text).toContain('https://junction.clinic.example:9000/#/transactions/t1');
    expect(message.html).toContain(`href="${escapeHtml(transactionListUrl(base))}"`);
    // An auto-retry rule's list has no response filter: its transactions may have failed with any status.
    expect(transactionListUrl({ ...base, rule: { condition: 'auto-retry-max-attempted' } })).not.toContain('response=');
  });

  it('links at most MAX_LINKED transactions one by one and counts the rest', () => {
    const ids = Array.from({ length: MAX_LINKED + 5 }, (_, i) => `t${String(i)}`);
    const message = alertMessage({ ...base, count: ids.length, transactionIds: ids });
    expect(message.text.match(/#\/transactions\/t\d+/g)).toHaveLength(MAX_LINKED);
    expect(message.text).toContain('and 5 more in the list above');
  });

  it('escapes the channel name in the HTML and keeps the SMS plain', () => {
    const message = alertMessage({ ...base, channel: { ...base.channel, name: '<Lab & "X">' } });
    expect(message.html).toContain('<strong>&lt;Lab &amp; &quot;X&quot;&gt;</strong>');
    expect(message.html).not.toContain('<Lab');
    expect(message.text).toContain('Channel: <Lab & "X">');
    expect(message.sms).toContain('on <Lab & "X">,');
    expect(escapeHtml(`a'b`)).toBe('a&#39;b');
  });

  it('keeps the subject and SMS on one line whatever the channel is called', () => {
    const message = alertMessage({ ...base, channel: { ...base.channel, name: 'Lab\r\nBcc: someone@else.example' } });
    expect(message.subject).toBe('Junction alert: status 500 on Lab Bcc: someone@else.example');
    expect(message.sms).not.toMatch(/[\r\n]/);
  });

  it('fits the SMS in one 160-character plain segment, cutting the channel name first', () => {
    const long = alertMessage({ ...base, channel: { ...base.channel, name: `Laboratoire régional ${'très '.repeat(40)}long` }, instance: 'Kisumu County Hospital' });
    expect(long.sms.length).toBeLessThanOrEqual(SMS_MAX_LENGTH);
    expect(long.sms).toMatch(/^[\x20-\x7e]+$/);
    expect(long.sms).toContain('Laboratoire regional tres');
    expect(long.sms).toContain('...,');
    expect(long.sms).toContain('3 transactions, 2026-11-24 08:00 to 08:05 (Africa/Nairobi)');
    expect(long.sms).not.toContain('http');
    const huge = alertMessage({ ...base, instance: 'x'.repeat(300) });
    expect(huge.sms.length).toBe(SMS_MAX_LENGTH);
  });

  it('names the instance when there is one', () => {
    const message = alertMessage({ ...base, instance: 'Kisumu' });
    expect(message.subject).toBe('Junction alert (Kisumu): status 500 on Lab results');
    expect(message.text).toContain('Channel: Lab results on Kisumu');
  });
});
