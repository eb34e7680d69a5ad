/** Frames of the live feed websocket (`/ws` on the management API), as JSON text. Import with `import type`. */
import type { TaskOutcome, TaskStatus } from './tasks.js';
import type { TransactionStatus } from './transactions.js';

/** What the server pushes: `{type, data}`. Dates are ISO 8601 text. */
export type LiveFrame =
  | { type: 'hello'; data: { user: string; events: LiveEventType[] } }
  | { type: 'transaction.started' | 'transaction.completed'; data: LiveTransaction }
  | { type: 'mediator.heartbeat'; data: { urn: string; name: string; uptime: number; at: string } }
  | { type: 'task.progress'; data: { taskId: string; status: TaskStatus; totalTransactions: number; processed: number; remaining: number; succeeded?: number; failed?: number; outcome?: TaskOutcome } }
  | { type: 'pong'; data: { at: string } }
  | { type: 'error'; data: { code: string; message: string } };

export type LiveEventType = 'transaction.started' | 'transaction.completed' | 'mediator.heartbeat' | 'task.progress';

export interface LiveTransaction {
  transactionId: string;
  channelID: string;
  status: TransactionStatus;
  method: string;
  path: string;
  responseStatus?: number;
}

/** What a client may send: only `{"type": "ping"}`, answered with a pong (the server also pings at the protocol level). */
export interface LiveClientFrame {
  type: 'ping';
}
