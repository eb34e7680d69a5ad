/**
 * Transactions written through the API: `POST /transactions` records a whole transaction, `PUT /transactions/:id`
 * replaces fields and appends (`$push`) routes and orchestrations, so an asynchronous mediator can complete a
 * transaction after its client was answered. Everything is checked first (domain/transactions/transaction-writes.ts, the channel,
 * the day, the body sizes); then the bodies go to the body store as proxied bodies do, and the record is written
 * once. A write that takes a transaction out of Processing announces its completion like the pipeline does.
 */
import { randomBytes } from 'node:crypto';
import type { TransactionCreate, TransactionUpdate } from '../contracts/transactions.js';
import { completes, errorOf, exchangeDraft, Problems, pushedList, reportsError, requestDraft, responseDraft } from '../domain/transactions/transaction-writes.js';
import type { ExchangeDraft, PartDraft } from '../domain/transactions/transaction-writes.js';
import { REASON_BODY_BYTES, reasonOfRecord } from '../domain/transactions/transaction-reason.js';
import type { RecordedOutcome } from '../domain/transactions/transaction-reason.js';
import { responseTimeOf } from '../events/live.js';
import type { LiveEvents } from '../events/live.js';
import { invalidInput } from '../refusals.js';
import type { Bodies, BodyRef } from '../storage/bodies/bodies.js';
import type { ChannelRecord } from '../storage/records.js';
import { dayOf, dayOfId, newTransactionId } from '../storage/transaction-ids.js';
import type { ExchangeRecord, TransactionChanges, TransactionLog, TransactionRecord, TransactionRequest, TransactionResponse } from '../storage/transactions.js';

export interface TransactionWriterOptions {
  log: TransactionLog;
  bodies: Bodies;
  /** The channel with this id, deleted ones included (their transactions keep their history); null when unknown. */
  findChannel: (id: string) => Promise<ChannelRecord | null>;
  events: LiveEvents;
  /** The router's body limit (router.maxBodyBytes): a longer body is refused, never stored truncated. */
  bodyCapBytes: number;
  now?: () => Date;
}

type Part = TransactionRequest | TransactionResponse;

/** Every part of one write with a body to store, in the order they were given. */
interface Collected {
  drafts: PartDraft<Part>[];
}

function collect<P extends Part>(collected: Collected, draft: PartDraft<P>): PartDraft<P> {
  collected.drafts.push(draft);
  return draft;
}

function collectExchange(collected: Collected, draft: ExchangeDraft<BodyRef>): ExchangeDraft<BodyRef> {
  collect(collected, draft.request);
  if (draft.response !== undefined) collect(collected, draft.response);
  return draft;
}

export class TransactionWriter {
  readonly #options: TransactionWriterOptions;

  constructor(options: TransactionWriterOptions) {
    this.#options = options;
  }

  /** Records a new transaction; refuses (400, nothing written) an unknown channel, a bad date or an oversized body. */
  async create(input: TransactionCreate): Promise<TransactionRecord> {
    const now = this.#now();
    const problems = new Problems();
    const channel = await this.#options.findChannel(input.channelID);
    if (channel === null) problems.add('body.channelID', `names no channel (${input.channelID})`);
    const collected: Collected = { drafts: [] };
    const request = collect(collected, requestDraft<BodyRef>(input.request, 'body.request', undefined, now, problems));
    const timestamp = request.part.timestamp;
    const response = input.response === undefined || input.response === null ? undefined : collect(collected, responseDraft<BodyRef>(input.response, 'body.response', undefined, now, problems));
    const routes = (input.routes ?? []).map((r, i) => collectExchange(collected, exchangeDraft<BodyRef>(r, `body.routes.${i}`, undefined, now, problems)));
    const orchestrations = (input.orchestrations ?? []).map((o, i) => collectExchange(collected, exchangeDraft<BodyRef>(o, `body.orchestrations.${i}`, undefined, now, problems)));
    this.#checkSizes(collected, problems);
    if (problems.list.length > 0 || channel === null) throw invalidInput(problems.list);

    const id = newTransactionId(timestamp);
    const stored = await this.#storeBodies(id, dayOf(timestamp), channel, collected);
    const record: TransactionRecord = {
      _id: id,
      channelID: channel._id,
      clientIP: input.clientIP ?? '',
      status: input.status,
      request: withBody(request, stored),
      routes: routes.map((r) => exchangeRecord(r, stored)),
      orchestrations: orchestrations.map((o) => exchangeRecord(o, stored)),
      canRerun: input.canRerun ?? true,
      autoRetry: input.autoRetry ?? false,
      autoRetryAttempt: input.autoRetryAttempt ?? 0,
      ...(input.clientID === undefined || input.clientID === null ? {} : { clientID: input.clientID }),
      ...(response === undefined ? {} : { response: withBody(response, stored) }),
      ...(input.properties === undefined || input.properties === null ? {} : { properties: input.properties }),
      ...(input.error === undefined || input.error === null ? {} : { error: errorOf(input.error) }),
      ...(input.wasRerun === undefined ? {} : { wasRerun: input.wasRerun }),
    };
    const reason = reasonOfRecord(record, responseHead(response));
    if (reason !== undefined) record.reason = reason;
    const inserted = await this.#options.log.insert(record);
    this.#announce(inserted, null, channel.name);
    return inserted;
  }

  /** Changes a transaction; null when the id is unknown. Refuses (400, nothing written) what `create` refuses, and a move to another day. */
  async update(id: string, input: TransactionUpdate): Promise<TransactionRecord | null> {
    const { log } = this.#options;
    const before = await log.get(id);
    if (before === null) return null;
    const now = this.#now();
    const problems = new Problems();
    const channelID = input.channelID ?? before.channelID;
    const channel = await this.#options.findChannel(channelID);
    if (channel === null) problems.add('body.channelID', `names no channel (${channelID})`);
    const collected: Collected = { drafts: [] };
    const set: NonNullable<TransactionChanges['set']> = {};
    const unset: (keyof Omit<TransactionRecord, '_id'>)[] = [];

    const request = input.request === undefined ? undefined : collect(collected, requestDraft<BodyRef>(input.request, 'body.request', before.request, now, problems));
    const day = dayOfId(id);
    if (request !== undefined && dayOf(request.part.timestamp) !== day) problems.add('body.request.timestamp', `must stay on the transaction's day (${String(day)}): its id is made from it`);
    const response = input.response === undefined || input.response === null ? undefined : collect(collected, responseDraft<BodyRef>(input.response, 'body.response', before.response, now, problems));
    // A replaced list keeps the stored bodies of the items sent back without theirs (same place, same name).
    const replaced = (field: 'routes' | 'orchestrations') =>
      input[field]?.map((e, i) => collectExchange(collected, exchangeDraft<BodyRef>(e, `body.${field}.${i}`, before[field][i], now, problems)));
    const routes = replaced('routes');
    const orchestrations = replaced('orchestrations');
    const pushed = (field: 'routes' | 'orchestrations') =>
      pushedList(input.$push?.[field]).map((e, i) => collectExchange(collected, exchangeDraft<BodyRef>(e, `body.$push.${field}${Array.isArray(input.$push?.[field]) ? `.${i}` : ''}`, undefined, now, problems)));
    const pushedRoutes = pushed('routes');
    const pushedOrchestrations = pushed('orchestrations');
    this.#checkSizes(collected, problems);
    if (problems.list.length > 0 || channel === null) throw invalidInput(problems.list);

    const stored = await this.#storeBodies(id, day ?? dayOf(before.request.timestamp), channel, collected);
    if (input.channelID !== undefined) set.channelID = input.channelID;
    if (input.status !== undefined) set.status = input.status;
    if (typeof input.clientIP === 'string') set.clientIP = input.clientIP;
    if (request !== undefined) set.request = withBody(request, stored);
    if (response !== undefined) set.response = withBody(response, stored);
    if (routes !== undefined) set.routes = routes.map((r) => exchangeRecord(r, stored));
    if (orchestrations !== undefined) set.orchestrations = orchestrations.map((o) => exchangeRecord(o, stored));
    if (input.error !== undefined && input.error !== null) set.error = errorOf(input.error);
    if (input.properties !== undefined && input.properties !== null) set.properties = input.properties;
    if (input.clientID !== undefined && input.clientID !== null) set.clientID = input.clientID;
    for (const flag of ['canRerun', 'wasRerun', 'autoRetry'] as const) if (input[flag] !== undefined) set[flag] = input[flag];
    // null means "not set" (OpenHIM's console sends unused fields as null): the optional field is removed.
    for (const field of ['clientID', 'response', 'error', 'properties'] as const) if (input[field] === null) unset.push(field);
    if (input.routes === null) set.routes = [];
    if (input.orchestrations === null) set.orchestrations = [];
    // As OpenHIM does: a reported error queues an auto retry when the channel retries (the scan applies its maximum).
    if (input.autoRetry === undefined && channel.autoRetryEnabled && reportsError(input)) set.autoRetry = true;

    const push = pushedRoutes.length + pushedOrchestrations.length > 0 ? { routes: pushedRoutes.map((r) => exchangeRecord(r, stored)), orchestrations: pushedOrchestrations.map((o) => exchangeRecord(o, stored)) } : undefined;
    // The reason is decided again when the write changes what it is read from (an asynchronous mediator finishing).
    if (set.status !== undefined || set.error !== undefined || set.response !== undefined || set.routes !== undefined || unset.length > 0 || (push?.routes.length ?? 0) > 0) {
      const error = unset.includes('error') ? undefined : (set.error ?? before.error);
      const answered = unset.includes('response') ? undefined : (set.response ?? before.response);
      const after: RecordedOutcome = {
        status: set.status ?? before.status,
        routes: [...(set.routes ?? before.routes), ...(push?.routes ?? [])],
        ...(error === undefined ? {} : { error }),
        ...(answered === undefined ? {} : { response: answered }),
      };
      const head = responseHead(response);
      let reason = reasonOfRecord(after, head);
      // A response sent back without its body text (a fetched document, a cut body) keeps the words read from it before.
      if (head === undefined && reason !== undefined && reason === String(after.response?.status) && before.reason?.startsWith(`${reason}: `) === true) reason = before.reason;
      if (reason !== undefined) set.reason = reason;
      else if (before.reason !== undefined) unset.push('reason');
    }
    const changes: TransactionChanges = { set, ...(unset.length === 0 ? {} : { unset }) };
    if (push !== undefined) changes.push = push;
    const updated = await log.update(id, changes);
    if (updated !== null) this.#announce(updated, before.status, channel.name);
    return updated;
  }

  #now(): Date {
    return this.#options.now?.() ?? new Date();
  }

  #checkSizes(collected: Collected, problems: Problems): void {
    const cap = this.#options.bodyCapBytes;
    for (const draft of collected.drafts) {
      if (draft.body === null || !('text' in draft.body)) continue;
      const bytes = Buffer.byteLength(draft.body.text, 'utf8');
      if (bytes > cap) problems.add(`${draft.at}.body`, `is ${bytes} bytes, more than the router's body limit of ${cap} bytes (router.maxBodyBytes)`);
    }
  }

  /** Stores the new bodies as the pipeline does (small ones inline, large ones in body files), under the channel's body settings. */
  async #storeBodies(id: string, day: string, channel: ChannelRecord, collected: Collected): Promise<Map<PartDraft<Part>, BodyRef>> {
    const refs = new Map<PartDraft<Part>, BodyRef>();
    // Unique per write: a PUT that replaces a body must not collide with the body file it replaces.
    const write = randomBytes(4).toString('hex');
    for (const [i, draft] of collected.drafts.entries()) {
      if (draft.body === null) continue;
      if ('keep' in draft.body) {
        refs.set(draft, draft.body.keep);
        continue;
      }
      const isRequest = !('status' in draft.part);
      if (!(isRequest ? channel.requestBody : channel.responseBody)) continue;
      const sink = this.#options.bodies.sink({ day, channelId: channel._id, bodyId: `${id}-w${write}-${i}`, capBytes: this.#options.bodyCapBytes });
      sink.stream.end(Buffer.from(draft.body.text, 'utf8'));
      refs.set(draft, await sink.done);
    }
    return refs;
  }

  /** The live feed's started and completed events, as for a proxied transaction. */
  #announce(tx: TransactionRecord, before: TransactionRecord['status'] | null, channelName: string): void {
    const event = { transactionId: tx._id, channelID: tx.channelID, status: tx.status, method: tx.request.method, path: tx.request.path };
    if (before === null) this.#options.events.emit('transaction.started', event);
    if (!completes(before, tx.status)) return;
    // The writer knows the client only by id; a completion it announces is counted without a client name.
    const responseTimeMs = responseTimeOf(tx);
    const detail = { channelName, ...(responseTimeMs === undefined ? {} : { responseTimeMs }), transaction: tx };
    this.#options.events.completed(tx.response === undefined ? event : { ...event, responseStatus: tx.response.status }, detail);
  }
}

/** The start of a written response's body, for its reason: only an error answer's, and only when it came as text. */
function responseHead(draft: PartDraft<TransactionResponse> | undefined): Buffer | undefined {
  if (draft === undefined || draft.part.status < 400 || draft.body === null || !('text' in draft.body)) return undefined;
  return Buffer.from(draft.body.text.slice(0, REASON_BODY_BYTES), 'utf8');
}

function withBody<P extends Part>(draft: PartDraft<P>, refs: Map<PartDraft<Part>, BodyRef>): P {
  const ref = refs.get(draft);
  return (ref === undefined ? { ...draft.part } : { ...draft.part, body: ref }) as P;
}

function exchangeRecord(draft: ExchangeDraft<BodyRef>, refs: Map<PartDraft<Part>, BodyRef>): ExchangeRecord {
  const record: ExchangeRecord = { name: draft.name, request: withBody(draft.request, refs) };
  if (draft.response !== undefined) record.response = withBody(draft.response, refs);
  if (draft.error !== undefined) record.error = draft.error;
  return record;
}
