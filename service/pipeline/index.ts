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
import { StoreError } from '../storage/store.js';
import type { TransactionLog, TransactionIdFactory } from '../storage/transactions.js';
import { answerBrokeOff } from '../routing/http.js';
import type { RouteSenders } from '../routing/senders.js';
import type { ClientAuthenticator, PresentedCredentials } from './authenticate.js';
import type { ChannelCache } from './channel-cache.js';
import { splitTarget } from './context.js';
import type { TransactionContext } from './context.js';
import { matchChannel } from './match-channel.js';
import { admit } from './admit.js';
import { requestSection } from './store-request.js';
import { hasBody, startRoutes } from './route.js';
import type { RouteRun } from './route.js';
import { answerWithError, internalFailure, routeFailure, sendError, sendPrimary, storedBody } from './respond.js';
import type { Answering } from './respond.js';
import { copy } from '../streams/relay.js';
import type { Completion } from './complete.js';
import type { OtherOutcome } from './store-response.js';
import type { Admission } from './admission.js';
import type { UnfinishedTransactions } from './unfinished.js';
import { answerStructured } from './structured-response.js';
import { runTransaction } from './run.js';
import type { Moving, RunAdapter } from './run.js';
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
  /** Where every refused request is recorded (issue 35): the admission's refusals (admit.ts) and the disk floor's. */
  refusals?: RefusalSink;  /** Finishes, once the store answers again, a transaction whose last write failed. */
  unfinished?: Pick<UnfinishedTransactions, 'add'>;
}

/** What a sender refused for lack of disk space is told to wait before trying again (the watcher measures every few seconds). */
const REFUSED_RETRY_AFTER_SECONDS = 30;

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
      // A store that fails while the sender is checked (its client record, an audit) is a 503: it may send again.
      const error = err instanceof AppError ? err : err instanceof StoreError ? internalFailure(err) : new AppError('INTERNAL', undefined, null, { cause: err });
      if (error.status >= 500) this.#deps.logger.error({ err, transactionId: ctx.id }, 'transaction could not be admitted');
      req.resume();
      sendError(res, error);
      return;
    }
    await this.run(ctx, channel);
  }

  /**
   * Steps 4–6 for a request already admitted: the transaction ports after step 3, and replay.ts for re-runs, auto
   * retries and polling ticks, which have no caller to authenticate. The steps are every transport's (run.ts); what is
   * HTTP's own is how the routes get the streamed request and how the answer is written. Never rejects.
   */
  async run(ctx: TransactionContext, channel: ChannelRecord): Promise<void> {
    const { log, events, logger, admission, unfinished, limits } = this.#deps;
    const { finished } = await runTransaction(
      { log, events, logger, ...(admission === undefined ? {} : { admission }), ...(unfinished === undefined ? {} : { unfinished }) },
      {
        channel,
        fields: { id: ctx.id, client: ctx.client, clientIp: ctx.clientIp, request: requestSection(ctx), ...(ctx.rerun === undefined ? {} : { rerun: ctx.rerun }), ...(ctx.properties === undefined ? {} : { properties: ctx.properties }) },
        announced: ctx,
        timeoutMs: channel.timeout ?? limits.defaultTimeoutMs,
      },
      this.#adapter(ctx, channel),
    );
    // The exchange lasts until the transaction is final, as the answer is streamed while the other routes finish.
    await finished;
  }

  /** Steps 1–3 (admit.ts), worded as HTTP answers: a Basic challenge where it helps, `retry-after` when throttled. */
  async #admit(ctx: TransactionContext, peer: PresentedCredentials['peer']): Promise<ChannelRecord> {
    const { clientAuth, channels, limits } = this.#deps;
    const challenge = clientAuth.challengesBasic ? { headers: { 'www-authenticate': 'Basic realm="Junction"' } } : {};
    const { client, channel } = await admit(this.#deps, {
      credentials: { ...(ctx.req.headers.authorization === undefined ? {} : { authorization: ctx.req.headers.authorization }), ...(peer === undefined ? {} : { peer }), address: ctx.clientIp },
      match: async (caller) => {
        ctx.client = caller;
        const matched = await matchChannel(ctx, channels, limits.matchBodyLimitBytes);
        if (matched === undefined) throw new AppError('CHANNEL_NOT_FOUND', `No channel matches ${ctx.method} ${ctx.path}`);
        return matched;
      },
      refusedAt: (known) => requestRefusedAt(ctx.req, ctx.secure, known),
      refusals: {
        throttled: (wait) =>
          new AppError('CLIENT_THROTTLED', `Too many failed authentication attempts from this address; try again in ${wait} s`, { retryAfterSeconds: wait }, { headers: { 'retry-after': String(wait) } }),
        unauthenticated: () => new AppError('CLIENT_UNAUTHENTICATED', undefined, null, challenge),
        notAllowed: (client, refusedOn) => new AppError('CLIENT_NOT_AUTHORISED', `The client is not allowed to use channel ${refusedOn.name}`, null, client === null ? challenge : {}),
      },
    });
    ctx.client = client;
    return channel;
  }

  #sink(ctx: TransactionContext, channel: ChannelRecord, suffix: string, store: boolean): { stream: Writable; done: Promise<BodyRef> } | undefined {
    if (!store) return undefined;
    return this.#deps.bodies.sink({ day: dayOf(ctx.receivedAt), channelId: channel._id, bodyId: `${ctx.id}-${suffix}`, capBytes: this.#deps.limits.bodyCapBytes });
  }

  /** How an HTTP exchange starts its routes, is answered, is refused, and is torn down when it stalls. */
  #adapter(ctx: TransactionContext, channel: ChannelRecord): RunAdapter<void> {
    const { senders } = this.#deps;
    return {
      begin: (moving) => {
        // Requests without a body (most GETs) get no body file at all.
        const requestSink = this.#sink(ctx, channel, 'req', channel.requestBody && hasBody(ctx));
        const routes = channel.routes.filter((r) => r.status === 'enabled');
        const started = startRoutes(ctx, routes, { ...moving, senders }, requestSink?.stream);
        return {
          primary: started.primary,
          // Other routes' answers are read as soon as they come, not after the primary's: a body left unread would stall.
          others: started.others.map(({ started: begun, run }, index) => ({ started: begun, outcome: run.then((done) => this.#readOther(ctx, channel, done, index, moving)) })),
          ...(requestSink === undefined ? {} : { requestBody: requestSink.done }),
          requestComplete: () => ctx.req.complete,
        };
      },
      answer: (primary, completion, moving) => this.#answer(ctx, channel, primary, completion, moving),
      // Written after the failure is recorded; when the answer had already started, the socket is closed instead.
      refuse: (err) => sendError(ctx.res, internalFailure(err), ctx.id),
      stalled: () => {
        ctx.res.destroy();
        ctx.req.destroy();
      },
    };
  }

  /** Step 5b/6: answers the client from the primary route (or with Junction's error), committing the outcome first. */
  async #answer(ctx: TransactionContext, channel: ChannelRecord, primary: RouteRun, completion: Completion, moving: Moving): Promise<void> {
    const { limits, logger } = this.#deps;
    const { timeoutMs } = moving;
    const { route, answer } = primary;
    const answering: Answering = {
      touch: moving.touch,
      signal: moving.signal,
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
      noteHead: (head) => {
        primary.answerHead = head;
      },
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
  async #readOther(ctx: TransactionContext, channel: ChannelRecord, run: RouteRun, index: number, moving: Moving): Promise<OtherOutcome> {
    const { answer } = run;
    const { timeoutMs } = moving;
    if (answer === undefined) return { run };
    try {
      const sink = this.#sink(ctx, channel, `r${index + 1}`, channel.responseBody);
      const copied = await copy(answer.body, [], { touch: moving.touch, signal: moving.signal, ...(sink === undefined ? {} : { sink: sink.stream }) });
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
}
