/**
 * The transaction path, read top to bottom: authenticate → match channel → authorise → store request → route →
 * respond and store response. Each step lives in its own file; this class only runs them in order.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import type { AuditRecorder } from '../audit/recorder.js';
import { dayOf } from '../storage/bodies/body-files.js';
import type { BodyFiles, BodyRef } from '../storage/bodies/body-files.js';
import type { ChannelRecord } from '../storage/records.js';
import type { TransactionLog, TransactionIdFactory, TransactionResponse } from '../storage/transactions.js';
import type { HttpRouter } from '../routing/http.js';
import type { ClientAuthenticator, PresentedCredentials } from './authenticate.js';
import type { ChannelCache } from './channel-cache.js';
import { splitTarget } from './context.js';
import type { TransactionContext } from './context.js';
import { matchChannel } from './match-channel.js';
import { authoriseRequest } from './authorise.js';
import { requestSection, storedHeaders, storeRequest } from './store-request.js';
import { hasBody, startRoutes } from './route.js';
import { drainResponse, routeFailure, sendError, sendPrimary } from './respond.js';
import { storeResponse } from './store-response.js';
import type { Outcome } from './store-response.js';
import { answerStructured } from './structured-response.js';
import type { MediatorOutcome } from './structured-response.js';
import { isStructuredResponse } from '../domain/mediator-response.js';
import type { LiveEvents } from '../events/live.js';

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
  bodies: BodyFiles;
  router: HttpRouter;
  audit: AuditRecorder;
  events: LiveEvents;
  logger: Logger;
  newId: TransactionIdFactory;
  limits: PipelineLimits;
}

export class Pipeline {
  readonly #deps: PipelineDeps;

  constructor(deps: PipelineDeps) {
    this.#deps = deps;
  }

  /** Handles one request from a transaction port. Never rejects: every failure becomes an answer and a log line. */
  async handle(req: IncomingMessage, res: ServerResponse, transport: { secure: boolean; peer?: PresentedCredentials['peer'] }): Promise<void> {
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
    try {
      await this.#process(ctx, channel);
    } catch (err) {
      this.#deps.logger.error({ err, transactionId: ctx.id }, 'transaction failed inside Junction');
      sendError(ctx.res, new AppError('INTERNAL'), ctx.id);
      await this.#deps.log
        .update(ctx.id, { set: { status: 'Failed', error: { message: (err as Error).message } } })
        .catch((e: unknown) => this.#deps.logger.error({ err: e, transactionId: ctx.id }, 'could not mark the transaction Failed'));
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
  async #process(ctx: TransactionContext, channel: ChannelRecord): Promise<void> {
    const { log, events, router, limits } = this.#deps;
    const stored = await storeRequest(ctx, channel, log);
    events.emit('transaction.started', { transactionId: ctx.id, channelID: channel._id, status: stored.status, method: ctx.method, path: ctx.path });

    // Requests without a body (most GETs) get no body file at all.
    const requestSink = this.#sink(ctx, channel, 'req', channel.requestBody && hasBody(ctx));
    const routes = channel.routes.filter((r) => r.status === 'enabled');
    const started = startRoutes(ctx, routes, router, channel.timeout ?? limits.defaultTimeoutMs, requestSink?.stream);

    const primary = await started.primary;
    let response: TransactionResponse;
    let mediator: MediatorOutcome | undefined;
    if (primary.answer !== undefined && isStructuredResponse(primary.answer.headers['content-type'])) {
      const sink = (suffix: string, store: boolean) => this.#sink(ctx, channel, suffix, store);
      const answeredAt = primary.answeredAt ?? new Date();
      ({ response, mediator } = await answerStructured({ ctx, channel, answer: primary.answer, answeredAt, sink, capBytes: limits.bodyCapBytes, logger: this.#deps.logger }));
    } else if (primary.answer !== undefined) {
      const sink = this.#sink(ctx, channel, 'res', channel.responseBody);
      await sendPrimary(ctx, channel, primary.answer, sink?.stream, limits.bodyCapBytes);
      const body = await sink?.done;
      response = { status: primary.answer.status, headers: storedHeaders(primary.answer.headers), timestamp: primary.answeredAt ?? new Date(), ...(body === undefined ? {} : { body }) };
    } else {
      const error = routeFailure(primary.error ?? new Error('no answer'));
      sendError(ctx.res, error, ctx.id);
      response = { status: error.status, headers: {}, timestamp: new Date() };
    }

    const others = await Promise.all(
      started.others.map(async (promise, index) => {
        const run = await promise;
        if (run.answer === undefined) return { run };
        const sink = this.#sink(ctx, channel, `r${index + 1}`, channel.responseBody);
        await drainResponse(run.answer, sink?.stream);
        const body = await sink?.done;
        return body === undefined ? { run } : { run, body };
      }),
    );
    const requestBody = await requestSink?.done;
    const outcome: Outcome = { request: requestSection(ctx), primary, response, others, ...(requestBody === undefined ? {} : { requestBody }), ...(mediator === undefined ? {} : { mediator }) };
    const completed = await storeResponse(log, ctx.id, channel, outcome);
    events.emit('transaction.completed', {
      transactionId: ctx.id,
      channelID: channel._id,
      status: completed?.status ?? 'Failed',
      method: ctx.method,
      path: ctx.path,
      responseStatus: response.status,
    });
  }
}
