/**
 * The words of an alert (issue 16 part 4; OpenHIM's content, OPENHIM-FACTS.md 3.6, less its defect of not saying the
 * time window): a subject, a plain-text and an HTML body for email, and one short line for SMS. Pure; the caller
 * passes the zone to show times in and the console's address.
 */
import type { Channel } from '../../contracts/channels.js';
import type { TransactionStatus } from '../transactions/transaction-status.js';
import type { AlertRule } from './alert-rules.js';
import type { AlertWindow } from './alert-window.js';
import { wallTime } from './alert-window.js';

export interface AlertMessageInput {
  rule: AlertRule;
  channel: Pick<Channel, '_id' | 'name' | 'autoRetryMaxAttempts'>;
  /** The span the message reports (the run's window, or a longer one from reportSpan). */
  window: AlertWindow;
  /** How many of the channel's transactions the rule matched in the window. */
  count: number;
  /** The measured failure rate in percent (failureRateOf), for a rule with a failureRate. */
  failureRate?: number;
  /** All the channel's transactions in the window, shown beside a failure rate. */
  total?: number;
  /**
   * How many of the matching transactions ended in each status, as far as the caller knows them: the message says
   * "failed" or "completed with errors" as they did, and "ended" with a breakdown when they differ.
   */
  statuses?: Partial<Record<TransactionStatus, number>>;
  /** The matching transactions; the first MAX_LINKED get a link each. */
  transactionIds: readonly string[];
  /** The console's address, such as `https://junction.clinic.example:9000` (a trailing slash is fine). */
  consoleUrl: string;
  /** IANA zone the times are shown in, and named. */
  timeZone: string;
  /** Which Junction this is (OpenHIM's `himInstance`), when more than one may alert the same people. */
  instance?: string;
  /**
   * How long before its end a counted transaction's request may have arrived (the channel's timeout). The console
   * filters its list by request time, so the list link starts this much earlier than the window to include them all.
   */
  requestLeadMs?: number;
}

export interface AlertMessage {
  subject: string;
  text: string;
  html: string;
  /** One line of at most SMS_MAX_LENGTH plain characters, without a link. */
  sms: string;
}

/** How many transactions get a link of their own; the rest are in the list link. */
export const MAX_LINKED = 10;
/** One SMS segment of the GSM 7-bit alphabet. */
export const SMS_MAX_LENGTH = 160;

/** Text made safe inside HTML elements and double- or single-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** The rule in a few words: `status 500`, `status 4xx at over 20 %`, `auto-retry max reached`. */
export function ruleLabel(rule: AlertRule): string {
  if (rule.condition === 'auto-retry-max-attempted') return 'auto-retry max reached';
  if (rule.condition === 'refusals') return 'refused requests';
  const status = `status ${(rule.status ?? '').trim().toLowerCase()}`;
  return rule.failureRate === undefined ? status : `${status} at over ${String(rule.failureRate)} %`;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * A window as people read it, in a zone: `2026-11-24 08:00 to 08:05 (Africa/Nairobi)`. The date is repeated only
 * when the end falls on another day; seconds are shown only when a bound is not on a whole minute. The end is
 * exclusive, as everywhere in the alerts, which is how "08:00 to 08:05" reads.
 */
export function formatWindow(window: AlertWindow, timeZone: string): string {
  const from = wallTime(window.from, timeZone);
  const to = wallTime(window.to, timeZone);
  const seconds = from.second !== 0 || to.second !== 0 || window.from.getMilliseconds() !== 0 || window.to.getMilliseconds() !== 0;
  const date = (w: typeof from): string => `${String(w.year)}-${pad(w.month)}-${pad(w.day)}`;
  const time = (w: typeof from): string => `${pad(w.hour)}:${pad(w.minute)}${seconds ? `:${pad(w.second)}` : ''}`;
  const sameDay = date(from) === date(to);
  return `${date(from)} ${time(from)} to ${sameDay ? '' : `${date(to)} `}${time(to)} (${timeZone})`;
}

function consoleBase(consoleUrl: string): string {
  return consoleUrl.trim().replace(/\/+$/, '').replace(/\/#.*$/, '');
}

/**
 * The console's transaction list filtered to the channel, the rule's status and the window, in the URL parameters
 * its list reads (renderer/src/data/transaction-filters.ts: channel, response, from, to). Its `to` is inclusive, so
 * it is the window's last millisecond.
 */
export function transactionListUrl(input: Pick<AlertMessageInput, 'rule' | 'channel' | 'window' | 'consoleUrl' | 'requestLeadMs'>): string {
  const params = new URLSearchParams();
  params.set('channel', input.channel._id);
  if (input.rule.condition === 'refusals') {
    // Refusals are listed on their own page (renderer/src/pages/refusals), filtered the same way.
    params.set('from', input.window.from.toISOString());
    params.set('to', new Date(input.window.to.getTime() - 1).toISOString());
    return `${consoleBase(input.consoleUrl)}/#/refusals?${params.toString()}`;
  }
  if (input.rule.condition === 'status' && input.rule.status !== undefined) params.set('response', input.rule.status.trim().toLowerCase());
  params.set('from', new Date(input.window.from.getTime() - Math.max(0, input.requestLeadMs ?? 0)).toISOString());
  params.set('to', new Date(input.window.to.getTime() - 1).toISOString());
  return `${consoleBase(input.consoleUrl)}/#/transactions?${params.toString()}`;
}

/** The console's page of one transaction. */
export function transactionUrl(consoleUrl: string, transactionId: string): string {
  return `${consoleBase(consoleUrl)}/#/transactions/${encodeURIComponent(transactionId)}`;
}

// Header and SMS text stay on one line whatever a channel is called. Not trimmed, so parts keep their spacing.
function oneLine(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    out += code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 ? ' ' : char;
  }
  return out.replace(/\s+/g, ' ');
}

/**
 * SMS text in plain ASCII, which every gateway and handset takes as GSM 7-bit (one 160-character segment); any other
 * character would turn the whole message into UCS-2, whose segment is 70. Accents are dropped, the rest becomes `?`.
 */
function plainAscii(text: string): string {
  return oneLine(text)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '?');
}

function transactionsWord(count: number, rule?: AlertRule): string {
  if (rule?.condition === 'refusals') return count === 1 ? '1 refusal' : `${String(count)} refusals`;
  return count === 1 ? '1 transaction' : `${String(count)} transactions`;
}

/** What a transaction that ended in each status did, in the words of a sentence: `3 transactions failed`. */
const STATUS_VERBS: Record<TransactionStatus, string> = {
  Failed: 'failed',
  Completed: 'completed',
  'Completed with error(s)': 'completed with errors',
  Successful: 'succeeded',
  // Not a final status: an alert never reads one, but the table stays whole.
  Processing: 'ended',
};

const knownStatuses = (statuses: AlertMessageInput['statuses']): [TransactionStatus, number][] =>
  Object.entries(statuses ?? {}).filter((entry): entry is [TransactionStatus, number] => Object.hasOwn(STATUS_VERBS, entry[0]) && (entry[1] ?? 0) > 0);

/** The verb for the transactions' one status, or `ended` when they ended differently or are not known. */
function endedAs(statuses: AlertMessageInput['statuses']): string {
  const known = knownStatuses(statuses);
  return known.length === 1 && known[0] !== undefined ? STATUS_VERBS[known[0][0]] : 'ended';
}

/** `` (one status) or ` (2 failed, 1 completed with errors)` when they ended differently. */
function statusBreakdown(statuses: AlertMessageInput['statuses']): string {
  const known = knownStatuses(statuses);
  if (known.length < 2) return '';
  return ` (${known.map(([status, n]) => `${String(n)} ${STATUS_VERBS[status]}`).join(', ')})`;
}

function whatHappened(input: AlertMessageInput): string {
  const { rule, count } = input;
  if (rule.condition === 'refusals') {
    return `${count === 1 ? '1 request or message was' : `${String(count)} requests or messages were`} refused before becoming transactions (see each one's reason in the console's Refused list)`;
  }
  if (rule.condition === 'auto-retry-max-attempted') {
    const max = input.channel.autoRetryMaxAttempts;
    const times = max === undefined || max <= 0 ? '' : ` ${String(max)} time${max === 1 ? '' : 's'}`;
    return `${transactionsWord(count)} ${count === 1 ? 'was' : 'were'} retried automatically${times} and still failed; ${count === 1 ? 'it' : 'they'} will not be retried again`;
  }
  const status = (rule.status ?? '').trim().toLowerCase();
  const verb = endedAs(input.statuses);
  // A failure-rate message counts its hour, of which only this run's transactions have a known status: no breakdown.
  // `completed with errors with response status` would stumble.
  const joined = `${transactionsWord(count)} ${verb} ${verb.includes(' with ') ? 'and' : 'with'} response status ${status}`;
  if (rule.failureRate === undefined) return `${joined}${statusBreakdown(input.statuses)}`;
  const base = joined;
  const measured = input.failureRate === undefined ? '' : `${String(input.failureRate)} %`;
  const ofTotal = input.total === undefined ? '' : ` of ${String(input.total)}`;
  return `${base}${ofTotal}${measured === '' ? '' : ` (${measured})`}, above the alert's ${String(rule.failureRate)} %`;
}

/** The alert's subject, plain text, HTML and SMS for one rule, channel and window. */
export function alertMessage(input: AlertMessageInput): AlertMessage {
  const channelName = oneLine(input.channel.name).trim();
  const label = ruleLabel(input.rule);
  const window = formatWindow(input.window, input.timeZone);
  const happened = whatHappened(input);
  const instance = input.instance === undefined || oneLine(input.instance).trim() === '' ? undefined : oneLine(input.instance).trim();
  const on = instance === undefined ? '' : ` on ${instance}`;
  const listUrl = transactionListUrl(input);
  const ids = [...new Set(input.transactionIds)];
  const linked = ids.slice(0, MAX_LINKED);
  const more = ids.length - linked.length;

  const subject = `Junction alert${instance === undefined ? '' : ` (${instance})`}: ${label} on ${channelName}`;

  const text = [
    `Junction alert: ${label}`,
    '',
    `Channel: ${channelName}${on}`,
    `From ${window}: ${happened}.`,
    '',
    `See them in the console: ${listUrl}`,
    ...(linked.length === 0 ? [] : ['', ...linked.map((id) => transactionUrl(input.consoleUrl, id)), ...(more > 0 ? [`and ${String(more)} more in the list above`] : [])]),
    '',
  ].join('\n');

  const h = escapeHtml;
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${h(subject)}</title></head><body>`,
    `<h1>Junction alert: ${h(label)}</h1>`,
    `<p>Channel: <strong>${h(channelName)}</strong>${h(on)}</p>`,
    `<p>From ${h(window)}: ${h(happened)}.</p>`,
    `<p><a href="${h(listUrl)}">See them in the console</a></p>`,
    ...(linked.length === 0 ? [] : ['<ul>', ...linked.map((id) => `<li><a href="${h(transactionUrl(input.consoleUrl, id))}">${h(id)}</a></li>`), '</ul>', ...(more > 0 ? [`<p>and ${String(more)} more in the list above</p>`] : [])]),
    '</body></html>',
    '',
  ].join('\n');

  return { subject, text, html, sms: smsText(input, label) };
}

// `Junction alert: status 500 on Lab, 3 transactions, 2026-11-24 08:00 to 08:05 (Africa/Nairobi)`, shortened to one
// segment by cutting the channel name first (the rest says what to look for), then the whole line.
function smsText(input: AlertMessageInput, label: string): string {
  const rate = input.rule.condition === 'status' && input.rule.failureRate !== undefined && input.failureRate !== undefined ? ` (${String(input.failureRate)} %)` : '';
  const instance = input.instance === undefined ? '' : plainAscii(input.instance).trim();
  const head = `Junction alert${instance === '' ? '' : ` (${instance})`}: ${label} on `;
  const tail = `, ${transactionsWord(input.count, input.rule)}${rate}, ${formatWindow(input.window, input.timeZone)}`;
  let channel = plainAscii(input.channel.name).trim();
  const room = SMS_MAX_LENGTH - plainAscii(head).length - plainAscii(tail).length;
  if (channel.length > room) channel = room > 3 ? `${channel.slice(0, room - 3).trimEnd()}...` : '';
  const line = plainAscii(`${head}${channel}${tail}`).trim();
  return line.length <= SMS_MAX_LENGTH ? line : `${line.slice(0, SMS_MAX_LENGTH - 3)}...`;
}
