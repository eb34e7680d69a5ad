/**
 * Re-run rules (SPEC.md "Transaction"): who may re-run a channel's transactions, which transactions can be replayed,
 * and the warning for one that was re-run before. Pure; the task queue, the task runner and auto retry ask these.
 */
import type { Channel } from '../../contracts/channels.js';
import type { TransactionStatus } from '../../contracts/vocabulary.js';
import type { BodyFacts, RequestPart } from './transaction-parts.js';
import { isAdmin } from '../access/permissions.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Admins, and users in a group named by the channel's txRerunAcl. */
export function canRerunChannel(actor: { groups: readonly string[] }, channel: Pick<Channel, 'txRerunAcl'>): boolean {
  return isAdmin(actor) || channel.txRerunAcl.some((group) => actor.groups.includes(group));
}

/**
 * What the re-run rules read of a stored transaction (storage/transactions.ts's TransactionRecord has it): its status,
 * its flag, and its request (the method and the stored body).
 */
export interface RerunnableTransaction {
  status: TransactionStatus;
  canRerun: boolean;
  request: RequestPart<BodyFacts>;
}

/** Why the transaction cannot be re-run through its channel now (a phrase following "it cannot be re-run:"), or null. */
export function rerunRefusal(tx: RerunnableTransaction, channel: Pick<Channel, 'name' | 'status'> | null): string | null {
  if (channel === null || channel.status === 'deleted') return "its channel was deleted, and a re-run goes through the channel's current routes";
  if (channel.status !== 'enabled') return `its channel "${channel.name}" is disabled; enable the channel first`;
  if (tx.status === 'Processing') return 'it is still being processed; wait until it has completed';
  const method = tx.request.method.toUpperCase();
  const body = tx.request.body;
  if (BODY_METHODS.has(method) && body === undefined) {
    return `it is a ${method} whose request body was not stored (the channel had "requestBody" off, or the request had no body), so there is nothing to replay`;
  }
  if (body?.truncated === true) {
    return `its request body was stored truncated (${body.size} of ${body.receivedBytes} bytes, the limit is router.maxBodyBytes), so it cannot be replayed as sent`;
  }
  if (!tx.canRerun) return 'it is marked as not re-runnable: a body needed to replay it was not stored in full';
  return null;
}

/** The warning for a transaction that was already re-run (re-running it again is allowed), or null. */
export function rerunWarning(tx: { _id: string; wasRerun?: boolean; childIDs?: readonly string[] }): string | null {
  if (tx.wasRerun !== true) return null;
  const children = tx.childIDs ?? [];
  const earlier = children.length === 0 ? '' : ` (as ${children.join(', ')})`;
  return `Transaction ${tx._id} was already re-run${earlier}; it is re-run again`;
}

/** One attempt at delivering a message: an original transaction, or one of its re-runs or automatic retries. */
export interface Attempt {
  _id: string;
  request: { timestamp: Date };
}

/**
 * True when `a` was made after `b`: by request time, and by id between attempts of the same millisecond (ids begin
 * with their second, so the later id is the later attempt there too). A re-run's request time is when it was re-run,
 * so the latest attempt of a message is the newest transaction among its original and the re-runs linked to it.
 */
export function isLaterAttempt(a: Attempt, b: Attempt): boolean {
  const at = a.request.timestamp.getTime();
  const bt = b.request.timestamp.getTime();
  return at === bt ? a._id > b._id : at > bt;
}

/** The warning for matches left out because a later attempt of the same message exists. */
export function earlierAttemptsWarning(n: number): string {
  return `${n} matching transaction${n === 1 ? ' was' : 's were'} left out: a later attempt of the same message exists (an original re-run since, or an earlier re-run), and only the latest attempt of each message is re-run (latestAttemptOnly)`;
}
