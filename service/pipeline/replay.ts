/**
 * The replay entry into the pipeline: re-runs, auto retries and polling ticks. None has a client connection, so each
 * gets a detached request and response (real node:http objects over a socket that discards what is written, the
 * technique HTTP injection libraries use) and goes through the same steps 4–6 as a request from a transaction port
 * (`Pipeline.run`): stored, routed to the channel's current routes, stored again. Client authentication and channel
 * matching are skipped: a re-run keeps its original channel and client, a polling tick has neither caller nor match.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Duplex, Readable } from 'node:stream';
import { AppError } from '../errors.js';
import { channelKind } from '../domain/channels/channel-kinds.js';
import { rerunRefusal } from '../domain/transactions/rerun.js';
import { SECRET_HEADERS } from '../domain/transactions/stored-headers.js';
import type { Bodies, BodyRef } from '../storage/bodies/bodies.js';
import type { ChannelRecord, ClientRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';
import type { TransactionChanges, TransactionIdFactory, TransactionLog, TransactionRecord } from '../storage/transactions.js';
import type { RerunOrigin, TransactionContext } from './context.js';
import type { Pipeline } from './index.js';
import type { MessagePipeline } from './message.js';
import { readUpTo } from '../streams/relay.js';

/** SPEC.md "Polling channel behaviour": the path polled on routes that have no path of their own. */
export const POLL_PATH = '/trigger';
// Polling ticks come from Junction itself; OpenHIM sent them to its own port, so targets saw the loopback address.
const LOOPBACK = '127.0.0.1';

export interface ReplayDeps {
  pipeline: Pick<Pipeline, 'run'>;
  /** The message path of tcp and tls channels, whose re-runs go through their current routes as messages. */
  messages?: Pick<MessagePipeline, 'replay'>;
  log: TransactionLog;
  bodies: Bodies;
  channels: Collection<ChannelRecord>;
  clients: Collection<ClientRecord>;
  newId: TransactionIdFactory;
}

/** The id and time of a transaction about to be created, fixed beforehand so callers can record them first. */
export interface NewTransaction {
  id: string;
  receivedAt: Date;
}

export interface RerunOptions {
  /** The attempt number when this is an auto retry; 0 (the default) for a user's re-run. */
  autoRetryAttempt?: number;
  /** More changes to the parent, written together with the link to the child. */
  parentChanges?: TransactionChanges['set'];
}

interface DetachedRequest extends NewTransaction {
  method: string;
  path: string;
  querystring: string;
  headers: Record<string, string>;
  body: Readable | null;
  client: ClientRecord | null;
  clientIp: string;
  localPort?: number;
  rerun?: RerunOrigin;
  properties?: Record<string, string>;
}

function discardingSocket(localPort: number | undefined): Socket {
  const socket = new Duplex({
    read() {
      // nothing ever arrives on a detached request
    },
    write(_chunk, _encoding, done) {
      done();
    },
  });
  // node:http and the pipeline read these from the socket (URL rewriting uses the local port).
  Object.assign(socket, { localPort, remoteAddress: undefined, encrypted: false });
  return socket as unknown as Socket;
}

function detachedContext(request: DetachedRequest): TransactionContext {
  const socket = discardingSocket(request.localPort);
  const req = new IncomingMessage(socket);
  req.method = request.method;
  req.url = request.querystring === '' ? request.path : `${request.path}?${request.querystring}`;
  req.headers = request.headers;
  // The whole body is at hand (a stored file), so the pipeline must not treat the request as cut short.
  req.complete = true;
  const res = new ServerResponse(req);
  res.assignSocket(socket);
  return {
    id: request.id,
    receivedAt: request.receivedAt,
    req,
    res,
    secure: false,
    clientIp: request.clientIp,
    method: request.method,
    path: request.path,
    querystring: request.querystring,
    client: request.client,
    body: request.body ?? Readable.from([]),
    ...(request.rerun === undefined ? {} : { rerun: request.rerun }),
    ...(request.properties === undefined ? {} : { properties: request.properties }),
  };
}

// Framing is set again for the stored body, which is whole at hand, so there is nothing to continue from either.
const FRAMING_HEADERS = new Set(['content-length', 'transfer-encoding', 'expect']);

/** The stored request headers as sent again: masked credentials dropped, framing set for the stored body. */
function replayHeaders(stored: Readonly<Record<string, string>>, body: BodyRef | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(stored)) {
    if (SECRET_HEADERS.has(name) || FRAMING_HEADERS.has(name)) continue;
    headers[name] = value;
  }
  if (body !== undefined) headers['content-length'] = String(body.size);
  return headers;
}

function notRerunnable(id: string, reason: string): AppError {
  return new AppError('TRANSACTION_NOT_RERUNNABLE', `Transaction ${id} cannot be re-run: ${reason}`);
}

/**
 * A test message an administrator wrote or confirmed in the console (issue 36): exactly these bytes, sent through a
 * channel as a sender's would be, and marked with `properties`. `method`, `path` and `headers` are an http channel's.
 */
export interface TestInput {
  method: string;
  path: string;
  querystring: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The administrator's address, recorded as the transaction's client address. */
  clientIp: string;
  properties: Record<string, string>;
}

export class Replays {
  readonly #deps: ReplayDeps;
  /** Per parent: the link being written, so concurrent re-runs of one transaction each add their child. */
  readonly #links = new Map<string, Promise<void>>();

  constructor(deps: ReplayDeps) {
    this.#deps = deps;
  }

  /** A fresh id and time for a transaction that is about to be created. */
  newTransaction(): NewTransaction {
    const receivedAt = new Date();
    return { id: this.#deps.newId(receivedAt), receivedAt };
  }

  /**
   * Re-runs `original` through its channel's current routes as transaction `child` and links the two. Resolves with
   * the stored child. Rejects with TRANSACTION_NOT_RERUNNABLE, before anything is stored or sent, when it cannot be
   * re-run; any other rejection means the child could not be stored (and so nothing was sent either).
   */
  async rerun(original: TransactionRecord, child: NewTransaction, options: RerunOptions = {}): Promise<TransactionRecord> {
    const { pipeline, channels, clients } = this.#deps;
    const channel = await channels.findById(original.channelID);
    const refusal = rerunRefusal(original, channel);
    if (refusal !== null || channel === null) throw notRerunnable(original._id, refusal ?? 'its channel was deleted');
    const bodyRef = original.request.body;
    const body = bodyRef === undefined ? null : await this.#openBody(original._id, bodyRef);
    const client = original.clientID === undefined ? null : await clients.findById(original.clientID);
    const rerun: RerunOrigin = { parentID: original._id, autoRetryAttempt: options.autoRetryAttempt ?? 0, ...(original.clientID === undefined ? {} : { clientID: original.clientID }) };
    if (channelKind(channel.type)?.entry === 'message') {
      await this.#rerunMessage(original, child, channel, body, client, rerun);
      return this.#linked(original, child, options);
    }
    const ctx = detachedContext({
      ...child,
      method: original.request.method,
      path: original.request.path,
      querystring: original.request.querystring,
      headers: replayHeaders(original.request.headers, bodyRef),
      body,
      client,
      clientIp: original.clientIP,
      localPort: original.request.port,
      rerun,
    });
    try {
      await pipeline.run(ctx, channel);
    } finally {
      body?.destroy();
      ctx.req.socket.destroy();
    }
    return this.#linked(original, child, options);
  }

  /** The child as stored, once linked to its parent. */
  async #linked(original: TransactionRecord, child: NewTransaction, options: RerunOptions): Promise<TransactionRecord> {
    const stored = await this.#deps.log.get(child.id);
    if (stored === null) throw new Error(`the re-run of transaction ${original._id} could not be stored; the service log has the cause`);
    await this.link(original._id, child.id, options.parentChanges);
    return stored;
  }

  /**
   * A tcp or tls channel's transaction goes through the message path again (OpenHIM instead wrote it to its own
   * listener as a new, unlinked transaction, and could not for tls channels): same client and address, current routes.
   */
  async #rerunMessage(original: TransactionRecord, child: NewTransaction, channel: ChannelRecord, body: Readable | null, client: ClientRecord | null, rerun: RerunOrigin): Promise<void> {
    const { messages } = this.#deps;
    if (messages === undefined) throw notRerunnable(original._id, `${channel.type} channels are not running in this instance`);
    let message = Buffer.alloc(0);
    if (body !== null) {
      const read = await readUpTo(body, original.request.body?.size ?? 0);
      body.destroy();
      if (read.failure !== undefined) throw read.failure.error;
      message = Buffer.concat(read.chunks, read.size);
    }
    await messages.replay({
      ...child,
      channel,
      message,
      client,
      clientIp: original.clientIP,
      local: { address: original.request.host ?? '', port: original.request.port ?? 0 },
      rerun,
    });
  }

  /** Adds `childID` to the parent's childIDs (once) and marks the parent re-run, with `changes`; false when the parent is gone. */
  async link(parentID: string, childID: string, changes: TransactionChanges['set'] = {}): Promise<boolean> {
    const { log } = this.#deps;
    let linked = false;
    const previous = this.#links.get(parentID) ?? Promise.resolve();
    const next = previous.then(async () => {
      const parent = await log.get(parentID);
      if (parent === null) return;
      const childIDs = parent.childIDs ?? [];
      await log.update(parentID, { set: { ...changes, wasRerun: true, childIDs: childIDs.includes(childID) ? childIDs : [...childIDs, childID] } });
      linked = true;
    });
    const settled = next.catch(() => undefined);
    this.#links.set(parentID, settled);
    try {
      await next;
    } finally {
      if (this.#links.get(parentID) === settled) this.#links.delete(parentID);
    }
    return linked;
  }

  /** One polling tick as transaction `tx`: a GET of /trigger (or each route's own path) on the channel's enabled routes. */
  async poll(channel: ChannelRecord, tx: NewTransaction): Promise<TransactionRecord | null> {
    const ctx = detachedContext({ ...tx, method: 'GET', path: POLL_PATH, querystring: '', headers: {}, body: null, client: null, clientIp: LOOPBACK });
    try {
      await this.#deps.pipeline.run(ctx, channel);
    } finally {
      ctx.req.socket.destroy();
    }
    return this.#deps.log.get(tx.id);
  }

  /**
   * A test message as transaction `tx` (issue 36): no client, no matching, the channel's current routes, as a re-run
   * goes; resolves with the stored transaction once it is final (or the channel's timeout gave up on it).
   */
  async test(channel: ChannelRecord, tx: NewTransaction, input: TestInput): Promise<TransactionRecord | null> {
    const { pipeline, messages, log } = this.#deps;
    if (channelKind(channel.type)?.entry === 'message') {
      if (messages === undefined) throw new AppError('STORE_UNAVAILABLE', `${channel.type} channels are not running in this instance`);
      const local = { address: channel.tcpHost ?? '', port: channel.tcpPort ?? 0 };
      await messages.replay({ ...tx, channel, message: input.body, client: null, clientIp: input.clientIp, local, properties: input.properties });
      return log.get(tx.id);
    }
    const headers = { ...input.headers, 'content-length': String(input.body.length) };
    const ctx = detachedContext({ ...tx, method: input.method, path: input.path, querystring: input.querystring, headers, body: Readable.from([input.body], { objectMode: false }), client: null, clientIp: input.clientIp, properties: input.properties });
    try {
      await pipeline.run(ctx, channel);
    } finally {
      ctx.req.socket.destroy();
    }
    return log.get(tx.id);
  }

  async #openBody(id: string, ref: BodyRef): Promise<Readable> {
    try {
      return await this.#deps.bodies.openRead(ref);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw notRerunnable(id, "its stored request body was removed by retention (the channel's maxBodyAgeDays)");
      throw err;
    }
  }
}
