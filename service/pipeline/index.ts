/**
 * The transaction path, read top to bottom: authenticate → match channel → authorise → store request → route →
 * respond and store response. Each step lives in its own file; this class only runs them in order.
 *
 * Every transaction it stores ends in a final status and a `transaction.completed` event, whatever breaks: a route,
 * the client, or a defect (issue 12). Every wait has a limit (route timeouts, the stall watchdog), every stream move
 * settles (streams/relay.ts), and the outcome is committed before the client's answer leaves (complete.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import type { AuditRecorder } from '../audit/recorder.js';
import type { RefusedNodeAudit } from '../audit/refused-nodes.js';
import { dayOf } from '../storage/bodies/bodies.js';
import type { Bodies, BodyRef } from '../storage/bodies/bodies.js';
import type { ChannelRecord } from '../storage/records.js';
import type { TransactionLog, TransactionIdFactory, TransactionRecord } from '../storage/transactions.js';
import { answerBrokeOff } from '../routing/http.js';
import type { RouteSenders } from '../routing/senders.js';
import type { TransactionStatus } from '../domain/transactions/transaction-status.js';
import type { ClientAuthenticator, PresentedCredentials } from './authenticate.js';
import type { ChannelCache } from './channel-cache.js';
import { splitTarget } from './context.js';
import type { TransactionContext } from './context.js';
import { matchChannel } from './match-channel.js';
import { authoriseRequest } from './authorise.js';
import { requestSection, storeRequest } from './store-request.js';
import { hasBody, startRoutes } from './route.js';
import type { RouteRun } from './route.js';
import { answerWithError, internalFailure, routeFailure, sendError, sendPrimary, storedBody } from './respond.js';
import type { Answering } from './respond.js';
import { copy } from '../streams/relay.js';
import type { MoveOptions } from '../streams/relay.js';
import { announceCompleted, Completion, markFailed } from './complete.js';
import type { OtherOutcome } from './store-response.js';
import type { Admission } from './admission.js';
import { answerStructured } from './structured-response.js';
import { STALL_GRACE_MS, Watchdog } from './watchdog.js';
import { isStructuredResponse } from '../domain/channels/mediator-response.js';
import { storedHeaders } from '../domain/transactions/stored-headers.js';
import type { LiveEvents } from '../events/live.js';
import type { RefusalSink } from '../domain/operations/refusals.js';
import { requestRefusedAt } from './refused-at.js';

export interface PipelineLimits {
  /** Largest body stored per request or response; longer ones are stored truncated. */
  bodyCapBytes: number;
  /** Largest body read into memory for content matching. */
  matchBodyLimitBytes: number;
  /** Route timeout for channels that do not set their own. */
  defaultTimeoutMs: number;
}

export interface PipelineDeps {
  channels: ChannelCache;
  clientAuth: ClientAuthenticator;
  log: TransactionLog;
  bodies: Bodies;
  /** The sender of each route kind (routing/senders.ts); HTTP channels may have routes of every kind. */
  senders: RouteSenders;
  audit: AuditRecorder;
  events: LiveEvents;
  logger: Logger;
  newId: TransactionIdFactory;
  limits: PipelineLimits;
  /** Where clients refused on a channel are audited (node authentication, in per-address summaries). */
  refusedNodes?: Pick<RefusedNodeAudit, 'refused'>;
  /** Refuses new transactions before any write (the data folder below its free-space floor). */
  admission?: Admission;
  /** Where every refused request is recorded (issue 35): one call per refusal site below. */
  refusals?: RefusalSink;
}

/** What a sender refused for lack of disk space is told to wait before trying again (the watcher measures every few seconds). */
const REFUSED_RETRY_AFTER_SECONDS = 30;

/** How far one transaction got, so that a failure anywhere finishes it exactly once. */
interface RunState {
  /** The Processing record was inserted (before that there is nothing to finish). */
  stored: boolean;
  /** `transaction.completed` was emitted: the transaction is finished. */
  finished: boolean;
  completion?: Completion;
}

export class Pipeline {
  readonly #deps: PipelineDeps;

  constructor(deps: PipelineDeps) {
    this.#deps = deps;
  }

  /** Handles one request from a transaction port. Never rejects: every failure becomes an answer and a log line. */
  async handle(req: IncomingMessage, res: ServerResponse, transport: { secure: boolean; peer?: PresentedCredentials['peer'] }): Promise<void> {
    const refused = this.#deps.admission?.refusal();
    if (refused !== undefined) {
      // Before anything is written; the watcher logs the refusing once per episode, not once per request.
      this.#deps.refusals?.refusedWith({ code: 'STORE_UNAVAILABLE', message: refused }, requestRefusedAt(req, transport.secure));
      req.resume();
      sendError(res, new AppError('STORE_UNAVAILABLE', `Junction is not accepting transactions: ${refused}`, null, { headers: { 'retry-after': String(REFUSED_RETRY_AFTER_SECONDS) } }));
      return;
    }
    const receivedAt = new Date();
    const { path, querystring } = splitTarget(req.url);
    const ctx: TransactionContext = {
      id: this.#deps.newId(receivedAt),
      receivedAt,
      req,
      res,
      secure: transport.secure,
      clientIp: req.socket.remoteAddress ?? '',
      method: req.method ?? 'GET',
      path,
      querystring,
      client: null,
      body: req,
    };
    let channel: ChannelRecord;
    try {
      channel = await this.#admit(ctx, transport.peer);
    } catch (err) {
      const error = err instanceof AppError ? err : new AppError('INTERNAL', undefined, null, { cause: err });
      if (error.status >= 500) this.#deps.logger.error({ err, transactionId: ctx.id }, 'transaction could not be admitted');
      // A client not allowed on its channel is recorded in #admit, where the channel is known.
      if (error.code !== 'CLIENT_NOT_AUTHORISED') this.#deps.refusals?.refusedWith(error, requestRefusedAt(req, transport.secure, { client: ctx.client }));
      req.resume();
      sendError(res, error);
      return;
    }
    await this.run(ctx, channel);
  }

  /**
   * Steps 4–6 for a request already admitted: the transaction ports after step 3, and replay.ts for re-runs, auto
   * retries and polling ticks, which have no caller to authenticate. Never rejects.
   */
  async run(ctx: TransactionContext, channel: ChannelRecord): Promise<void> {
    const state: RunState = { stored: false, finished: false };
    try {
      await this.#process(ctx, channel, state);
    } catch (err) {
      const answer = internalFailure(err);
      if (answer.code === 'STORE_UNAVAILABLE') this.#deps.admission?.storeFailed();
      this.#deps.logger.error({ err, transactionId: ctx.id, channel: channel.name }, answer.code === 'STORE_UNAVAILABLE' ? 'transaction could not be stored; the client was answered 503' : 'transaction failed inside Junction');
      await this.#fail(ctx, channel, state, (err as Error).message);
      sendError(ctx.res, answer, ctx.id);
    }
  }

  /** Steps 1–3: who is calling, which channel, and may they use it. */
  async #admit(ctx: TransactionContext, peer: PresentedCredentials['peer']): Promise<ChannelRecord> {
    const { clientAuth } = this.#deps;
    const challenge = clientAuth.challengesBasic ? { 'www-authenticate': 'Basic realm="Junction"' } : undefined;
    // The authenticator counts and audits failures itself (in summary), so a flood costs no audit write per attempt.
    const result = await clientAuth.authenticate({ authorization: ctx.req.headers.authorization, peer, address: ctx.clientIp });
    if (result.outcome === 'throttled') {
      const wait = result.retryAfterSeconds;
      throw new AppError('CLIENT_THROTTLED', `Too many failed authentication attempts from this address; try again in ${wait} s`, { retryAfterSeconds: wait }, {
        headers: { 'retry-after': String(wait) },
      });
    }
    if (result.outcome === 'refused') {
      throw new AppError('CLIENT_UNAUTHENTICATED', undefined, null, challenge === undefined ? {} : { headers: challenge });
    }
    ctx.client = result.outcome === 'authenticated' ? result.client : null;
    const channel = await matchChannel(ctx, this.#deps.channels, this.#deps.limits.matchBodyLimitBytes);
    if (channel === undefined) throw new AppError('CHANNEL_NOT_FOUND', `No channel matches ${ctx.method} ${ctx.path}`);
    try {
      authoriseRequest(ctx, channel);
    } catch (err) {
      if (err instanceof AppError) await this.#deps.refusedNodes?.refused({ address: ctx.clientIp, channel: channel.name, reason: err.message });
      if (err instanceof AppError) this.#deps.refusals?.refusedWith(err, requestRefusedAt(ctx.req, ctx.secure, { channel, client: ctx.client }));
      if (ctx.client === null && challenge !== undefined && err instanceof AppError) {
        throw new AppError(err.code, err.message, null, { headers: challenge });
      }
      throw err;
    }
    return channel;
  }

  #sink(ctx: TransactionContext, channel: ChannelRecord, suffix: string, store: boolean): { stream: Writable; done: Promise<BodyRef> } | undefined {
    if (!store) return undefined;
    return this.#deps.bodies.sink({ day: dayOf(ctx.receivedAt), channelId: channel._id, bodyId: `${ctx.id}-${suffix}`, capBytes: this.#deps.limits.bodyCapBytes });
  }

  /** Steps 4–6: store, route, answer, store again. */
  async #process(ctx: TransactionContext, channel: ChannelRecord, state: RunState): Promise<void> {
    const { log, events, senders, limits } = this.#deps;
    const stored = await storeRequest(ctx, channel, log);
    state.stored = true;
    events.emit('transaction.started', { transactionId: ctx.id, channelID: channel._id, status: stored.status, method: ctx.method, path: ctx.path });

    const timeoutMs = channel.timeout ?? limits.defaultTimeoutMs;
    const abort = new AbortController();
    const watchdog = new Watchdog(timeoutMs + STALL_GRACE_MS, () => this.#stalled(ctx, channel, state, abort, timeoutMs + STALL_GRACE_MS));
    const touch = (): void => watchdog.touch();
    const moving: MoveOptions = { touch, signal: abort.signal };
    try {
      // Requests without a body (most GETs) get no body file at all.
      const requestSink = this.#sink(ctx, channel, 'req', channel.requestBody && hasBody(ctx));
      const routes = channel.routes.filter((r) => r.status === 'enabled');
      const started = startRoutes(ctx, routes, { timeoutMs, signal: abort.signal, touch, senders }, requestSink?.stream);
      // Other routes' answers are read as soon as they come, not after the primary's: a body left unread would stall.
      const others = started.others.map(({ started: begun, run }, index) => ({
        started: begun,
        outcome: run.then((done) => this.#readOther(ctx, channel, done, index, timeoutMs, moving)),
      }));
      const completion = new Completion({
        log,
        id: ctx.id,
        channel,
        request: requestSection(ctx),
        others,
        ...(requestSink === undefined ? {} : { requestBody: requestSink.done }),
        requestComplete: () => ctx.req.complete,
      });
      state.completion = completion;
      await this.#answer(ctx, channel, await started.primary, completion, timeoutMs, moving);
      const record = await completion.finished();
      this.#completed(ctx, channel, state, record?.status ?? 'Failed', record);
    } finally {
      watchdog.stop();
    }
  }

  /** Step 5b/6: answers the client from the primary route (or with Junction's error), committing the outcome first. */
  async #answer(ctx: TransactionContext, channel: ChannelRecord, primary: RouteRun, completion: Completion, timeoutMs: number, moving: MoveOptions): Promise<void> {
    const { limits, logger } = this.#deps;
    const { route, answer } = primary;
    const answering: Answering = {
      ...moving,
      ctx,
      channel,
      capBytes: limits.bodyCapBytes,
      logger,
      brokeOff: (err) => answerBrokeOff(err, route, timeoutMs),
      commit: (response, brokeOff) => {
        if (brokeOff !== undefined) primary.brokeOff = brokeOff;
        return completion.answered(primary, response);
      },
      requestStored: () => completion.requestStored(),
    };
    if (answer === undefined) {
      await answerWithError(answering, routeFailure(primary.error ?? new Error('no answer')));
      return;
    }
    const answeredAt = primary.answeredAt ?? new Date();
    if (isStructuredResponse(answer.headers['content-type'])) {
      await answerStructured({
        ...answering,
        answer,
        answeredAt,
        sink: (suffix, store) => this.#sink(ctx, channel, suffix, store),
        commit: (response, brokeOff, mediator) => {
          if (brokeOff !== undefined) primary.brokeOff = brokeOff;
          return completion.answered(primary, response, mediator);
        },
      });
      return;
    }
    const sink = this.#sink(ctx, channel, 'res', channel.responseBody);
    await sendPrimary({ ...answering, ...(sink === undefined ? {} : { sink }) }, answer, { status: answer.status, headers: storedHeaders(answer.headers), timestamp: answeredAt });
  }

  /** Reads another route's answer into its body file (or discards it), recording where it broke off. Never rejects. */
  async #readOther(ctx: TransactionContext, channel: ChannelRecord, run: RouteRun, index: number, timeoutMs: number, moving: MoveOptions): Promise<OtherOutcome> {
    const { answer } = run;
    if (answer === undefined) return { run };
    try {
      const sink = this.#sink(ctx, channel, `r${index + 1}`, channel.responseBody);
      const copied = await copy(answer.body, [], { ...moving, ...(sink === undefined ? {} : { sink: sink.stream }) });
      // What arrived is stored, up to where it broke.
      sink?.stream.end(copied.last);
      if (copied.failure !== undefined) run.brokeOff = copied.failure.side === 'source' ? answerBrokeOff(copied.failure.error, run.route, timeoutMs) : copied.failure.error;
      return { run, ...(await storedBody(sink, this.#deps.logger, ctx.id)) };
    } catch (err) {
      answer.body.destroy();
      run.brokeOff = err as Error;
      return { run };
    }
  }

  /**
   * Nothing moved for the route timeout plus a grace (watchdog.ts): gives up on the transaction. Everything it waits
   * on is aborted, so the ordinary path finishes it as Failed with this reason; should even that not happen (a
   * defect), it is marked Failed here after another grace.
   */
  #stalled(ctx: TransactionContext, channel: ChannelRecord, state: RunState, abort: AbortController, limitMs: number): void {
    const reason = new Error(
      `nothing moved for ${limitMs} ms (the client stopped reading its answer or sending its request, or a part of Junction stalled); Junction gave up on the transaction`,
    );
    this.#deps.logger.warn({ transactionId: ctx.id, channel: channel.name, limitMs }, 'transaction stalled; giving up on it');
    abort.abort(reason);
    ctx.res.destroy();
    ctx.req.destroy();
    const last = setTimeout(() => void this.#fail(ctx, channel, state, reason.message), STALL_GRACE_MS);
    last.unref();
  }

  /** Finishes a transaction as Failed with `message`, unless it is finished already; never rejects. */
  async #fail(ctx: TransactionContext, channel: ChannelRecord, state: RunState, message: string): Promise<void> {
    if (state.finished || !state.stored) return;
    state.completion?.abandon();
    const record = await markFailed(this.#deps.log, this.#deps.logger, ctx.id, message);
    this.#completed(ctx, channel, state, 'Failed', record);
  }

  /** Emits `transaction.completed`, once per transaction. */
  #completed(ctx: TransactionContext, channel: ChannelRecord, state: RunState, status: TransactionStatus, record: TransactionRecord | null): void {
    if (state.finished) return;
    state.finished = true;
    announceCompleted(this.#deps.events, ctx, channel, status, record);
  }
}
