/**
 * Polling channel schedules (SPEC.md "Polling schedule"): a cron expression, or a descriptive interval such as
 * "5 minutes". Pure; the cron check uses the parser node-schedule itself uses, so what saves also schedules.
 */
import cronParser from 'cron-parser';

export type PollingSchedule = { kind: 'every'; ms: number } | { kind: 'cron'; expression: string };

const UNIT_MS: Readonly<Record<string, number>> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 };
const DESCRIPTIVE = /^([1-9][0-9]{0,8})\s+(second|minute|hour|day)s?$/i;

/** The schedule a channel's `pollingSchedule` text describes, or null when it is neither form. */
export function parsePollingSchedule(text: string): PollingSchedule | null {
  const trimmed = text.trim();
  const descriptive = DESCRIPTIVE.exec(trimmed);
  if (descriptive !== null) {
    const ms = Number(descriptive[1]) * (UNIT_MS[(descriptive[2] ?? '').toLowerCase()] ?? Number.NaN);
    return Number.isSafeInteger(ms) ? { kind: 'every', ms } : null;
  }
  const fields = trimmed.split(/\s+/);
  // cron-parser would also take 4 fields, which node-schedule's users do not expect; cron has 5 (6 with seconds).
  if (fields.length !== 5 && fields.length !== 6) return null;
  const expression = fields.join(' ');
  try {
    cronParser.parseExpression(expression);
  } catch {
    return null;
  }
  return { kind: 'cron', expression };
}
