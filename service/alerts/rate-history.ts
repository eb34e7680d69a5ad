/**
 * The counts a failure-rate rule is judged on. OpenHIM judges the rate over the last hour (its console says so), and so
 * does Junction: the alert job keeps, per rule, the channel's finished transactions and the rule's matches per minute
 * of commit time for the last hour, in its saved state. A run adds its window's entries and reads the hour back, so
 * the rate is never computed by re-reading an hour of the log each minute, and a restart keeps the history. Pure.
 */
import type { AlertWindow } from '../domain/alerts/alert-window.js';
import type { RuleCounts } from '../domain/alerts/alert-rules.js';

const MINUTE_MS = 60_000;
/** How far back a failure rate looks. */
export const RATE_SPAN_MS = 60 * MINUTE_MS;

/** One rule's history: since when it is known, and per minute start (epoch ms) `[total, matching]`. */
export interface RateHistory {
  /** When counting began for this rule (the first window that saw it): the rate span never reaches before it. */
  since: number;
  minutes: Record<string, [number, number]>;
}

/** The start of the minute `at` falls in, in epoch ms. */
export function minuteOf(at: Date): number {
  return Math.floor(at.getTime() / MINUTE_MS) * MINUTE_MS;
}

/** The span a run at the end of `window` judges the rate over: the last hour, in whole minutes, from when known. */
export function rateSpan(history: RateHistory, window: AlertWindow): AlertWindow {
  const from = Math.max(minuteOf(new Date(window.to.getTime() - RATE_SPAN_MS)), history.since);
  return { from: new Date(Math.min(from, window.to.getTime())), to: window.to };
}

/**
 * The history with a window's per-minute counts added and minutes before the rate span dropped. A new rule starts
 * its history at the window's start.
 */
export function addToHistory(history: RateHistory | undefined, window: AlertWindow, counts: ReadonlyMap<number, RuleCounts>): RateHistory {
  const next: RateHistory = { since: history?.since ?? window.from.getTime(), minutes: { ...(history?.minutes ?? {}) } };
  for (const [minute, { total, matching }] of counts) {
    const [t, m] = next.minutes[String(minute)] ?? [0, 0];
    next.minutes[String(minute)] = [t + total, m + matching];
  }
  const keepFrom = rateSpan(next, window).from.getTime();
  for (const minute of Object.keys(next.minutes)) if (Number(minute) < minuteOf(new Date(keepFrom))) delete next.minutes[minute];
  return next;
}

/** The rule's counts over its rate span. */
export function countsOver(history: RateHistory, window: AlertWindow): RuleCounts {
  const from = minuteOf(rateSpan(history, window).from);
  let total = 0;
  let matching = 0;
  for (const [minute, [t, m]] of Object.entries(history.minutes)) {
    if (Number(minute) < from || Number(minute) >= window.to.getTime()) continue;
    total += t;
    matching += m;
  }
  return { total, matching };
}

/** A history read back from saved state, or undefined when it is not one (then the rule starts afresh). */
export function parseHistory(value: unknown): RateHistory | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { since, minutes } = value as { since?: unknown; minutes?: unknown };
  if (typeof since !== 'number' || !Number.isFinite(since) || typeof minutes !== 'object' || minutes === null) return undefined;
  const parsed: Record<string, [number, number]> = {};
  for (const [minute, pair] of Object.entries(minutes as Record<string, unknown>)) {
    if (!Array.isArray(pair) || pair.length !== 2 || !pair.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0)) continue;
    if (!Number.isFinite(Number(minute))) continue;
    parsed[minute] = [pair[0] as number, pair[1] as number];
  }
  return { since, minutes: parsed };
}
