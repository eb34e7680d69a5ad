/**
 * The alert records of the outbox as the alert decisions read them (domain/alerts/alert-rules.ts `AlertSend`). A message
 * still pending counts as sent: it was handed over and delivery will try it until it is sent or fails for good, so
 * neither `maxAlerts` nor the de-duplication may treat it as missing.
 */
import type { AlertSend } from '../domain/alerts/alert-rules.js';
import type { AlertMethod } from '../contracts/channels.js';
import type { NotificationRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';

/** How far back the records are read: the longest span a message reports (a day) and a margin for `1 per day`. */
const LOOK_BACK_MS = 2 * 24 * 3_600_000;

/** One alert record as a send. */
export function toAlertSend(record: NotificationRecord): AlertSend | null {
  const alert = record.alert;
  if (alert === undefined) return null;
  return {
    ruleKey: alert.ruleKey,
    user: record.user ?? record.to,
    method: record.method,
    outcome: record.status === 'held' ? 'held' : record.status === 'failed' ? 'failed' : 'sent',
    at: record.created,
    covered: { from: alert.window.from, to: alert.window.to },
    transactionIds: alert.transactionIds,
  };
}

/** The recent alert records of one rule, as sends. */
export async function previousSends(notifications: Collection<NotificationRecord>, ruleKey: string, now: Date): Promise<AlertSend[]> {
  const records = await notifications.find({ kind: 'alert', 'alert.ruleKey': ruleKey, created: { $gte: new Date(now.getTime() - LOOK_BACK_MS) } });
  return records.map(toAlertSend).filter((send): send is AlertSend => send !== null);
}

function mine(sends: readonly AlertSend[], user: string, method: AlertMethod | undefined): AlertSend[] {
  const email = user.toLowerCase();
  return sends.filter((send) => send.user.toLowerCase() === email && (method === undefined || send.method === method));
}

/**
 * The transactions held back from a recipient (records `held` by `maxAlerts`, or `failed`) since their last message
 * that went out, within `span` (reportSpan's): what their next message must also report.
 */
export function heldBack(sends: readonly AlertSend[], user: string, method: AlertMethod, span: { from: Date; to: Date }): string[] {
  const ids: string[] = [];
  for (const send of mine(sends, user, method)) {
    if (send.outcome === 'sent') continue;
    if (send.covered.from.getTime() < span.from.getTime() || send.covered.to.getTime() > span.to.getTime()) continue;
    ids.push(...send.transactionIds);
  }
  return ids;
}

/**
 * The transactions no record of this rule for this recipient names yet, whatever its outcome: a held or failed record
 * is written once per transaction, so a window evaluated twice (a crash before the state was saved) adds none twice.
 */
export function notYetRecorded(transactionIds: readonly string[], sends: readonly AlertSend[], user: string, method: AlertMethod | undefined): string[] {
  const recorded = new Set<string>();
  for (const send of mine(sends, user, method)) for (const id of send.transactionIds) recorded.add(id);
  return [...new Set(transactionIds)].filter((id) => !recorded.has(id));
}
