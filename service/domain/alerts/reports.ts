/**
 * Daily and weekly reports (issue 16 part 5; OpenHIM's reports, OPENHIM-FACTS.md section 4, less its defects): which
 * periods are due at an instant, what one user's report holds, and its words (subject, HTML and plain text). Pure:
 * the clock, the zone, the buckets and the channels are passed in.
 *
 * Where OpenHIM differs: its periods are cut in UTC while its schedule follows server time, and its plain-text part
 * shows zeros. Here both the schedule and the periods are in one zone (the `timeZone` setting), days may last 23 or
 * 25 hours, and the text part carries the same numbers as the HTML.
 */
import { DateTime } from 'luxon';
import type { ChannelStatus } from '../../contracts/channels.js';
import { escapeHtml } from './alert-message.js';
import type { MetricBucket } from '../operations/metric-buckets.js';
import { bucketStart } from '../operations/metric-periods.js';
import type { TransactionStatus } from '../transactions/transaction-status.js';

export type ReportKind = 'daily' | 'weekly';
export const REPORT_KINDS: readonly ReportKind[] = ['daily', 'weekly'];

/** Reports fall due at 07:00 in the zone: daily ones every day, weekly ones on Monday (OpenHIM's default times). */
export const REPORT_HOUR = 7;

/** One report period: `[from, to)`, whole days (daily) or a whole ISO week, Monday to Monday (weekly). */
export interface ReportPeriod {
  kind: ReportKind;
  from: Date;
  to: Date;
  /** The zone's date of `from` (`yyyy-mm-dd`): names the period in keys and in the job's state. */
  startDate: string;
  /** When the report fell due: 07:00 on the day `to` begins. */
  dueAt: Date;
}

// 07:00 on the zone's date of `dayStart`. Set on the wall clock rather than added as hours, so a day whose clocks
// changed at 02:00 still reports at 07:00.
function reportTimeOn(dayStart: Date, timeZone: string): Date {
  const local = DateTime.fromJSDate(dayStart, { zone: timeZone });
  return DateTime.fromObject({ year: local.year, month: local.month, day: local.day, hour: REPORT_HOUR }, { zone: timeZone }).toJSDate();
}

function localDate(at: Date, timeZone: string): string {
  return DateTime.fromJSDate(at, { zone: timeZone }).toFormat('yyyy-MM-dd');
}

/**
 * The latest period of `kind` whose report is due at `now` in `timeZone`: at 07:00 on 24 November the daily period is
 * 23 November, and at 06:59 it is still 22 November (sent the morning before). Weekly: the ISO week before the Monday
 * 07:00 at or before `now`.
 */
export function latestDuePeriod(kind: ReportKind, now: Date, timeZone: string): ReportPeriod {
  const unit = kind === 'daily' ? 'day' : 'week';
  let to = bucketStart(now, unit, timeZone);
  let dueAt = reportTimeOn(to, timeZone);
  if (now.getTime() < dueAt.getTime()) {
    to = bucketStart(new Date(to.getTime() - 1), unit, timeZone);
    dueAt = reportTimeOn(to, timeZone);
  }
  const from = bucketStart(new Date(to.getTime() - 1), unit, timeZone);
  return { kind, from, to, startDate: localDate(from, timeZone), dueAt };
}

/** The latest due period of each kind at `now`. */
export function duePeriods(now: Date, timeZone: string): ReportPeriod[] {
  return REPORT_KINDS.map((kind) => latestDuePeriod(kind, now, timeZone));
}

/** What the job has sent: the start date of the last period of each kind it finished. */
export type ReportsDone = Partial<Record<ReportKind, string>>;

/**
 * The periods to send now: the latest due one of each kind, unless it (or a later one) is already done. Never an
 * older period: a machine that was off for a week sends one daily and one weekly report, not seven.
 */
export function periodsToSend(now: Date, timeZone: string, done: ReportsDone): ReportPeriod[] {
  return duePeriods(now, timeZone).filter((period) => {
    const last = done[period.kind];
    return last === undefined || period.startDate > last;
  });
}

/** The counts a report shows; times in milliseconds. */
export interface ReportCounts {
  total: number;
  successful: number;
  completed: number;
  completedWithErrors: number;
  failed: number;
  processing: number;
  /** Sum of the response times, in milliseconds. */
  totalResponseTime: number;
}

/** One row: a channel, or the totals (`channelID` null). */
export interface ReportRow extends ReportCounts {
  channelID: string | null;
  name: string;
  /** Average response time in whole milliseconds; 0 when nothing was counted. */
  avgResponseMs: number;
}

export interface ReportTable {
  /** One row per channel, by name. */
  rows: ReportRow[];
  totals: ReportRow;
}

/** What a report needs of a channel record. */
export interface ReportChannel {
  _id: string;
  name: string;
  status?: ChannelStatus;
}

const EMPTY: ReportCounts = { total: 0, successful: 0, completed: 0, completedWithErrors: 0, failed: 0, processing: 0, totalResponseTime: 0 };

function add(a: ReportCounts, b: ReportCounts): ReportCounts {
  return {
    total: a.total + b.total,
    successful: a.successful + b.successful,
    completed: a.completed + b.completed,
    completedWithErrors: a.completedWithErrors + b.completedWithErrors,
    failed: a.failed + b.failed,
    processing: a.processing + b.processing,
    totalResponseTime: a.totalResponseTime + b.totalResponseTime,
  };
}

function countsOf(bucket: MetricBucket): ReportCounts {
  return {
    total: bucket.requests,
    successful: bucket.successful,
    completed: bucket.completed,
    completedWithErrors: bucket.completedWithErrors,
    failed: bucket.failed,
    processing: bucket.processing,
    totalResponseTime: bucket.totalResponseTime,
  };
}

function row(channelID: string | null, name: string, counts: ReportCounts): ReportRow {
  return { channelID, name, ...counts, avgResponseMs: counts.total === 0 ? 0 : Math.round(counts.totalResponseTime / counts.total) };
}

/**
 * One user's table from the period's buckets: a row for every channel they may view (`'all'` for admins) that is
 * enabled or had traffic in the period (OpenHIM's rule: a disabled or deleted channel shows only when it has numbers),
 * and the totals of those rows. Buckets of a channel no longer on record show under its id, to admins only.
 */
export function reportTable(buckets: readonly MetricBucket[], channels: readonly ReportChannel[], viewable: 'all' | ReadonlySet<string>): ReportTable {
  const may = (id: string): boolean => viewable === 'all' || viewable.has(id);
  const sums = new Map<string, ReportCounts>();
  for (const bucket of buckets) {
    if (!may(bucket.channelID)) continue;
    sums.set(bucket.channelID, add(sums.get(bucket.channelID) ?? EMPTY, countsOf(bucket)));
  }
  const rows: ReportRow[] = [];
  const known = new Set<string>();
  for (const channel of channels) {
    known.add(channel._id);
    if (!may(channel._id)) continue;
    const counts = sums.get(channel._id);
    const active = channel.status === undefined || channel.status === 'enabled';
    if (active || (counts !== undefined && counts.total > 0)) rows.push(row(channel._id, channel.name, counts ?? EMPTY));
  }
  for (const [id, counts] of sums) {
    if (!known.has(id) && viewable === 'all' && counts.total > 0) rows.push(row(id, `(channel ${id}, no longer on record)`, counts));
  }
  rows.sort((a, b) => a.name.localeCompare(b.name, 'en') || (a.channelID ?? '').localeCompare(b.channelID ?? ''));
  return { rows, totals: row(null, 'All channels', rows.reduce<ReportCounts>((sum, r) => add(sum, r), EMPTY)) };
}

/** The status columns, in the order shown, with the transaction status each links to. */
export const REPORT_COLUMNS: readonly { field: keyof Omit<ReportCounts, 'totalResponseTime'>; label: string; status?: TransactionStatus }[] = [
  { field: 'total', label: 'Total' },
  { field: 'successful', label: 'Successful', status: 'Successful' },
  { field: 'completed', label: 'Completed', status: 'Completed' },
  { field: 'completedWithErrors', label: 'Completed with errors', status: 'Completed with error(s)' },
  { field: 'failed', label: 'Failed', status: 'Failed' },
  { field: 'processing', label: 'Processing', status: 'Processing' },
];
export const AVERAGE_LABEL = 'Average response (ms)';

export interface ReportMessageInput {
  period: ReportPeriod;
  table: ReportTable;
  /** Zone the period was cut in, and named. */
  timeZone: string;
  /** `alerts.himInstance`. */
  instance: string;
  /** The console's address, such as `https://junction.clinic.example:8080`. */
  consoleUrl: string;
  /** When the report was made. */
  generatedAt: Date;
}

export interface ReportMessage {
  subject: string;
  text: string;
  html: string;
}

function consoleBase(consoleUrl: string): string {
  return consoleUrl.trim().replace(/\/+$/, '').replace(/\/#.*$/, '');
}

/**
 * The console's transaction list for the period, narrowed to a channel and a status when given, in the parameters
 * its list reads (renderer/src/data/transaction-filters.ts). The list filters on request time, as the buckets
 * count; its `to` is inclusive, so it is the period's last millisecond.
 */
export function reportListUrl(consoleUrl: string, period: Pick<ReportPeriod, 'from' | 'to'>, channelID: string | null, status?: TransactionStatus): string {
  const params = new URLSearchParams();
  if (status !== undefined) params.append('status', status);
  if (channelID !== null) params.set('channel', channelID);
  params.set('from', period.from.toISOString());
  params.set('to', new Date(period.to.getTime() - 1).toISOString());
  return `${consoleBase(consoleUrl)}/#/transactions?${params.toString()}`;
}

/** The console's page of one channel. */
export function channelUrl(consoleUrl: string, channelID: string): string {
  return `${consoleBase(consoleUrl)}/#/channels/${encodeURIComponent(channelID)}`;
}

// Names and the instance stay on one line in the subject and the text table.
function oneLine(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    out += code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 ? ' ' : char;
  }
  return out.replace(/\s+/g, ' ').trim();
}

const WHEN = 'cccc d LLLL yyyy HH:mm';

/**
 * The period as people read it, its zone named: `Monday 23 November 2026 00:00 to Tuesday 24 November 2026 00:00
 * (Africa/Nairobi)`, with the length said when clocks changed within it (a 23- or 25-hour day).
 */
export function formatPeriod(period: Pick<ReportPeriod, 'kind' | 'from' | 'to'>, timeZone: string): string {
  const from = DateTime.fromJSDate(period.from, { zone: timeZone }).setLocale('en-GB');
  const to = DateTime.fromJSDate(period.to, { zone: timeZone }).setLocale('en-GB');
  const hours = (period.to.getTime() - period.from.getTime()) / 3_600_000;
  const usual = period.kind === 'daily' ? 24 : 168;
  const note = hours === usual ? '' : `; ${String(hours)} hours, as clocks changed`;
  return `${from.toFormat(WHEN)} to ${to.toFormat(WHEN)} (${timeZone}${note})`;
}

function title(kind: ReportKind): string {
  return kind === 'daily' ? 'Daily' : 'Weekly';
}

function textTable(table: ReportTable): string[] {
  const header = ['Channel', ...REPORT_COLUMNS.map((c) => c.label), AVERAGE_LABEL];
  const lines = [...table.rows, table.totals].map((r) => [oneLine(r.name), ...REPORT_COLUMNS.map((c) => String(r[c.field])), String(r.avgResponseMs)]);
  const all = [header, ...lines];
  const widths = header.map((_, i) => Math.max(...all.map((cells) => (cells[i] ?? '').length)));
  const format = (cells: string[]): string => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [format(header), rule, ...lines.slice(0, -1).map(format), rule, format(lines[lines.length - 1] ?? [])];
}

const CELL = 'padding:4px 8px;border:1px solid #ddd;text-align:right';
const COLOURS: Partial<Record<keyof ReportCounts, string>> = { failed: '#c0392b', completed: '#d68910', completedWithErrors: '#d35400' };

function htmlRow(r: ReportRow, input: ReportMessageInput, totals: boolean): string {
  const h = escapeHtml;
  const weight = totals ? ';font-weight:bold' : '';
  const name = r.channelID === null ? h(r.name) : `<a href="${h(channelUrl(input.consoleUrl, r.channelID))}">${h(r.name)}</a>`;
  const cells = REPORT_COLUMNS.map((c) => {
    const value = r[c.field];
    if (value === 0) return `<td style="${CELL};color:#999${weight}">0</td>`;
    const colour = COLOURS[c.field];
    const link = reportListUrl(input.consoleUrl, input.period, r.channelID, c.status);
    return `<td style="${CELL}${weight}"><a href="${h(link)}"${colour === undefined ? '' : ` style="color:${colour}"`}>${String(value)}</a></td>`;
  });
  const avg = `<td style="${CELL}${r.avgResponseMs === 0 ? ';color:#999' : ''}${weight}">${String(r.avgResponseMs)}</td>`;
  return `<tr><td style="padding:4px 8px;border:1px solid #ddd;text-align:left${weight}">${name}</td>${cells.join('')}${avg}</tr>`;
}

/** The report's subject, plain text and HTML. Both bodies carry the same numbers. */
export function reportMessage(input: ReportMessageInput): ReportMessage {
  const instance = oneLine(input.instance) || 'Junction';
  const kind = title(input.period.kind);
  const subject = `${kind} report for ${instance}`;
  const when = formatPeriod(input.period, input.timeZone);
  const generated = `${DateTime.fromJSDate(input.generatedAt, { zone: input.timeZone }).setLocale('en-GB').toFormat(WHEN)} (${input.timeZone})`;
  const empty = input.table.rows.length === 0 ? 'No channel you may view was enabled or had transactions in this period.' : undefined;
  const listUrl = reportListUrl(input.consoleUrl, input.period, null);

  const text = [
    `${kind} transaction report for ${instance}`,
    `From ${when}`,
    '',
    `Transactions by the time their request arrived; average response times in milliseconds.`,
    '',
    ...textTable(input.table),
    ...(empty === undefined ? [] : ['', empty]),
    '',
    `See them in the console: ${listUrl}`,
    `Generated ${generated}.`,
    '',
  ].join('\n');

  const h = escapeHtml;
  const th = (label: string): string => `<th style="padding:4px 8px;border:1px solid #ddd;background:#f4f4f4">${h(label)}</th>`;
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${h(subject)}</title></head><body style="font-family:sans-serif">`,
    `<h1>${h(kind)} transaction report for ${h(instance)}</h1>`,
    `<p>From ${h(when)}</p>`,
    '<p>Transactions by the time their request arrived; average response times in milliseconds.</p>',
    '<table style="border-collapse:collapse">',
    `<thead><tr>${th('Channel')}${REPORT_COLUMNS.map((c) => th(c.label)).join('')}${th(AVERAGE_LABEL)}</tr></thead>`,
    '<tbody>',
    ...input.table.rows.map((r) => htmlRow(r, input, false)),
    '</tbody>',
    `<tfoot>${htmlRow(input.table.totals, input, true)}</tfoot>`,
    '</table>',
    ...(empty === undefined ? [] : [`<p>${h(empty)}</p>`]),
    `<p><a href="${h(listUrl)}">See them in the console</a></p>`,
    `<p style="color:#777">Generated ${h(generated)}.</p>`,
    '</body></html>',
    '',
  ].join('\n');

  return { subject, text, html };
}
