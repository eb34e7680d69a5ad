/**
 * OpenHIM's visualizer events (OPENHIM-FACTS 8.1) from a transaction: a start event when it begins, and at its end
 * the end of the channel, the primary route's start and end, and each other route's and orchestration's. Pure.
 */
import type { VisualizerEvent } from '../../contracts/visualizer.js';

/** End events of channels and primary routes are pushed this much later, so an end never draws before its start (OpenHIM's `enableTSNormalization`, on by default). */
export const END_NORMALIZATION_MS = 100;

/** One route's or orchestration's exchange, as much of it as the events need. */
export interface FinishedExchange {
  name: string;
  request: { timestamp: Date };
  response?: { status: number; timestamp: Date };
}

/** A finished transaction, as much of it as the events need (the transaction record satisfies it). */
export interface FinishedTransaction {
  _id: string;
  channelID: string;
  request: { timestamp: Date };
  response?: { status: number; timestamp: Date };
  routes: readonly FinishedExchange[];
  orchestrations: readonly FinishedExchange[];
  autoRetryAttempt: number;
}

/** The channel, as much of it as the events need. */
export interface EventChannel {
  name: string;
  routes: readonly { name: string; primary?: boolean }[];
}

/** `error` for a 5xx or no response at all (the client got Junction's own error), otherwise `success`. */
export function statusTypeOf(status: number | undefined): 'success' | 'error' {
  return status === undefined || (status >= 500 && status <= 599) ? 'error' : 'success';
}

/** The channel's start event, when a transaction begins at `at` (epoch ms). */
export function startEvent(transactionID: string, channelID: string, channelName: string, at: number): VisualizerEvent {
  return { channelID, transactionID, type: 'channel', event: 'start', name: channelName, normalizedTimestamp: at };
}

function ended(status: number | undefined): Pick<VisualizerEvent, 'status' | 'statusType'> {
  return { ...(status === undefined ? {} : { status }), statusType: statusTypeOf(status) };
}

/** Start and end of one exchange; its start is never drawn after its end. */
function exchangeEvents(tx: FinishedTransaction, type: 'route' | 'orchestration', exchange: FinishedExchange): VisualizerEvent[] {
  const base = { channelID: tx.channelID, transactionID: tx._id, type, name: exchange.name, autoRetryAttempt: tx.autoRetryAttempt };
  const start = exchange.request.timestamp.getTime();
  // An exchange without a response (refused, timed out) ends when the transaction does.
  const end = (exchange.response?.timestamp ?? tx.response?.timestamp ?? exchange.request.timestamp).getTime();
  return [
    { ...base, event: 'start', normalizedTimestamp: Math.min(start, end) },
    { ...base, event: 'end', normalizedTimestamp: end, ...ended(exchange.response?.status) },
  ];
}

/** Every event written when a transaction ends: primary route, orchestrations, other routes, channel end. */
export function endEvents(tx: FinishedTransaction, channel: EventChannel): VisualizerEvent[] {
  const base = { channelID: tx.channelID, transactionID: tx._id, autoRetryAttempt: tx.autoRetryAttempt };
  const start = tx.request.timestamp.getTime();
  const end = Math.max(start, (tx.response?.timestamp ?? tx.request.timestamp).getTime()) + END_NORMALIZATION_MS;
  const status = ended(tx.response?.status);
  const events: VisualizerEvent[] = [];
  const primary = channel.routes.find((r) => r.primary === true) ?? channel.routes[0];
  if (primary !== undefined) {
    events.push({ ...base, type: 'primary', event: 'start', name: primary.name, normalizedTimestamp: start });
    events.push({ ...base, type: 'primary', event: 'end', name: primary.name, normalizedTimestamp: end, ...status });
  }
  for (const orchestration of tx.orchestrations) events.push(...exchangeEvents(tx, 'orchestration', orchestration));
  for (const route of tx.routes) events.push(...exchangeEvents(tx, 'route', route));
  events.push({ ...base, type: 'channel', event: 'end', name: channel.name, normalizedTimestamp: end, ...status });
  return events;
}
