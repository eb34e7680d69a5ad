/**
 * The message path: tcp and tls channels (HL7 v2 over MLLP, or one message per connection). The listener
 * (transports/sockets.ts) hands over one whole message (bounded by `tcp.maxMessageBytes`), and it runs the steps every
 * transport runs: admit (admit.ts: the client from its TLS certificate, the channel's access rules), then store,
 * fan out, answer and complete (run.ts). What is this path's own is its adapter: the routes get the message whole
 * (route.ts `startWhole`: `http` routes as a POST body, so HTTP mediators work behind MLLP channels; `mllp` and `tcp`
 * routes as the message), each answer is read whole (`#settle`), and the sender is answered with reply bytes by the
 * ACK rules (acks.ts), which the listener frames.
 *
 * An HL7 ACK reply is the route's outcome (domain/codecs/hl7.ts `statusOfAck`): AA/CA count as 2xx, AE/CE as 4xx, AR/CR
 * as 5xx, so the transaction's status follows SPEC.md's table as for HTTP. Re-runs and auto retries enter after
 * admission (`replay`), with no connection to answer.
 */
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { RefusedNodeAudit } from '../audit/refused-nodes.js';
import { AppError } from '../errors.js';
import { readHeader, wrongAcknowledgement } from '../domain/codecs/hl7.js';
import { isStructuredResponse, parseMediatorResponse } from '../domain/channels/mediator-response.js';
import { storedHeaders } from '../domain/transactions/stored-headers.js';
import { REASON_BODY_BYTES } from '../domain/transactions/transaction-reason.js';
import type { LiveEvents } from '../events/live.js';
import { RouteError } from '../routing/http.js';
import type { RouteAnswer } from '../routing/http.js';
import type { RouteSenders } from '../routing/senders.js';
import { BodyStoreError, dayOf } from '../storage/bodies/bodies.js';
import type { Bodies, BodyRef } from '../storage/bodies/bodies.js';
import type { ChannelRecord, ClientRecord, RouteRecord } from '../storage/records.js';
import { StoreError } from '../storage/store.js';
import type { TransactionIdFactory, TransactionLog, TransactionRequest, TransactionResponse } from '../storage/transactions.js';
import { readUpTo } from '../streams/relay.js';
import { contentTypeOf, HL7_TYPE, isHl7, nak, replyFor } from './acks.js';
import type { Sender } from './acks.js';
import type { Admission } from './admission.js';
import type { UnfinishedTransactions } from './unfinished.js';
import { admit } from './admit.js';
import type { ClientAuthenticator } from './authenticate.js';
import type { RerunOrigin } from './context.js';
import type { InboundMessage, MessageHandler, MessageReply } from './inbound-message.js';
import { routeRequest, startWhole } from './route.js';
import type { Outbound, Prepared, RouteRun } from './route.js';
import { runTransaction } from './run.js';
import type { RunAdapter } from './run.js';
import type { OtherOutcome } from './store-response.js';
import { mediatorOutcome } from './structured-response.js';
import type { MediatorOutcome } from './structured-response.js';
import type { RefusalSink } from '../domain/operations/refusals.js';
import { messageRefusedAt } from './refused-at.js';

export interface MessageLimits {
  /** Largest body stored per message or reply; longer ones are stored truncated. */
  bodyCapBytes: number;
  /** Route timeout for channels that do not set their own. */
  defaultTimeoutMs: number;
  /** Largest answer read from an `http` route. */
  maxReplyBytes: number;
}

export interface MessagePipelineDeps {
  clientAuth: Pick<ClientAuthenticator, 'authenticate'>;
  log: TransactionLog;
  bodies: Bodies;
  /** The sender of each route kind (routing/senders.ts), shared with the HTTP path. */
  senders: RouteSenders;
  events: LiveEvents;
  logger: Logger;
  newId: TransactionIdFactory;
  limits: MessageLimits;
  /** Where senders refused on a channel are audited (node authentication, in per-address summaries). */
  refusedNodes?: Pick<RefusedNodeAudit, 'refused'>;
  /** Refuses new messages before any write (the data folder below its free-space floor). */
  admission?: Admission;
  /** Where every refused message is recorded (issue 35): the admission's refusals (admit.ts) and the disk floor's. */
  refusals?: RefusalSink;  /** Finishes, once the store answers again, a transaction whose last write failed. */
  unfinished?: Pick<UnfinishedTransactions, 'add'>;
}

/** One message on its way through steps 2–4: from a connection, or replayed. */
export interface MessageJob {
  id: string;
  receivedAt: Date;
  channel: ChannelRecord;
  message: Buffer;
  client: ClientRecord | null;
  clientIp: string;
  /** The listener's address and port, kept as the transaction's request host and port. */
  local: { address: string; port: number };
  rerun?: RerunOrigin;
  /** Stored with the transaction from its first write (a console test message's `test: "true"`). */
  properties?: Record<string, string>;
}

/** A route's run, with the reply read whole (or the mediator's response body). */
interface MessageRun extends RouteRun {
  reply?: Buffer;
  mediator?: MediatorOutcome;
}

/** What the sender is sent back and what the transaction records as its response. */
interface Answer {
  reply: Buffer | null;
  response: TransactionResponse;
  mediator?: MediatorOutcome;
}

/** The HTTP answer objects the shared completion code reads only the status and headers of. */
const NO_BODY = Readable.from([]);

// Each unknown MSH-18 name is logged once per channel; past this many pairs the memory of them starts over.
const MAX_UNKNOWN_CHARSETS_LOGGED = 1000;

export class MessagePipeline implements MessageHandler {
  readonly #deps: MessagePipelineDeps;
  /** Final writes still running after their reply was sent; `drain()` waits for them. */
  readonly #finishing = new Set<Promise<void>>();

  /** `channel\0name` pairs of MSH-18 values with no IANA charset already logged. */
  readonly #unknownCharsets = new Set<string>();

  constructor(deps: MessagePipelineDeps) {
    this.#deps = deps;
  }

  /** Says once per channel and name that a message went to HTTP routes without a charset, and why. */
  #unknownCharset(channel: string, name: string): void {
    const key = `${channel}\u0000${name}`;
    if (this.#unknownCharsets.has(key)) return;
    if (this.#unknownCharsets.size >= MAX_UNKNOWN_CHARSETS_LOGGED) this.#unknownCharsets.clear();
    this.#unknownCharsets.add(key);
    this.#deps.logger.warn({ channel, characterSet: name.slice(0, 100) }, 'MSH-18 names a character set with no IANA name (HL7 table 0211); messages are sent to HTTP routes without a charset parameter');
  }

  /** Every step for a message from a connection: resolves with the reply once the outcome is committed. Never rejects. */
  async handle(inbound: InboundMessage): Promise<MessageReply> {
    const { channel, message, peer } = inbound;
    const sender: Sender = { header: readHeader(message), framed: inbound.framing === 'mllp' };
    const refused = this.#deps.admission?.refusal();
    // Before anything is written; the watcher logs the refusing once per episode, not once per message.
    if (refused !== undefined) {
      this.#deps.refusals?.refusedWith({ code: 'STORE_UNAVAILABLE', message: refused }, messageRefusedAt(inbound));
      return { reply: nak(sender, 'AR', `Junction is not accepting messages: ${refused}`) };
    }
    let client: ClientRecord | null;
    try {
      ({ client } = await this.#admit(inbound));
    } catch (err) {
      const reason = err instanceof AppError ? err.message : 'Junction could not check the sender';
      if (!(err instanceof AppError)) this.#deps.logger.error({ err, channel: channel.name }, 'a message could not be admitted');
      else this.#deps.logger.info({ channel: channel.name, peer: peer.address, reason }, 'message refused');
      return { reply: nak(sender, 'AR', reason) };
    }
    const job: MessageJob = {
      id: this.#deps.newId(inbound.receivedAt),
      receivedAt: inbound.receivedAt,
      channel,
      message,
      client,
      clientIp: peer.address,
      local: inbound.local,
    };
    const { answer, finished } = await this.#run(job, sender);
    this.#track(finished);
    return { reply: answer, transactionId: job.id };
  }

  /** The steps after admission for a re-run or an auto retry: resolves once the transaction is final. Never rejects. */
  async replay(job: MessageJob): Promise<void> {
    const { finished } = await this.#run(job, { header: readHeader(job.message), framed: true });
    await finished;
  }

  /** Waits for the final writes of messages already answered (the service is stopping). */
  async drain(): Promise<void> {
    await Promise.all([...this.#finishing]);
  }

  #track(finished: Promise<void>): void {
    this.#finishing.add(finished);
    void finished.finally(() => this.#finishing.delete(finished));
  }

  /** Steps 1–3 (admit.ts) for a connection's sender, each refusal worded for the text of an AR NAK. */
  #admit(inbound: InboundMessage): ReturnType<typeof admit> {
    const { channel, peer } = inbound;
    return admit(this.#deps, {
      credentials: { ...(peer.certificate === undefined ? {} : { peer: peer.certificate }), address: peer.address },
      // The listener's own channel.
      match: () => Promise.resolve(channel),
      refusedAt: () => messageRefusedAt(inbound),
      refusals: {
        throttled: (wait) => new AppError('CLIENT_THROTTLED', `too many failed authentications from ${peer.address}; try again in ${wait} s`),
        unauthenticated: (reason) => new AppError('CLIENT_UNAUTHENTICATED', `the client certificate was refused: ${reason}`),
        required: (client) =>
          channel.requireClientCertificate === true && client === null ? new AppError('CLIENT_UNAUTHENTICATED', `channel ${channel.name} requires a client certificate registered to a client`) : undefined,
        notAllowed: (client) => new AppError('CLIENT_NOT_AUTHORISED', `${client === null ? `address ${peer.address}` : `client ${client.clientID}`} may not use channel ${channel.name}`),
      },
    });
  }

  /**
   * The steps after admission (run.ts), with this path's adapter: resolves with the reply once the outcome is
   * committed; `finished` settles when the transaction is final (other routes done). Neither rejects.
   */
  #run(job: MessageJob, sender: Sender): Promise<{ answer: Buffer | null; finished: Promise<void> }> {
    const { log, events, logger, admission, unfinished, limits } = this.#deps;
    const { channel, message } = job;
    const { contentType, unknown } = contentTypeOf(sender.header);
    if (unknown !== undefined) this.#unknownCharset(channel.name, unknown);
    const incoming = { 'content-type': contentType, 'content-length': String(message.length) };
    const request: TransactionRequest = { host: job.local.address, port: job.local.port, path: '/', querystring: '', method: 'POST', headers: incoming, timestamp: job.receivedAt };
    // Described to the fan-out as a POST of the message to `/`, which is how http routes get it.
    const outbound: Outbound = { id: job.id, clientIp: job.clientIp, method: 'POST', path: '/', querystring: '', req: { headers: incoming } };
    const adapter: RunAdapter<Buffer | null> = {
      begin: (moving) => {
        const requestBody = channel.requestBody ? this.#store(job, 'req', message) : undefined;
        const routes = channel.routes.filter((r) => r.status === 'enabled');
        const started = startWhole(outbound, message, routes, {
          ...moving,
          senders: this.#deps.senders,
          prepare: (route) => this.#routeRequest(outbound, route, incoming),
          settle: (run) => this.#settle(job, run, sender, moving.signal),
        });
        return {
          primary: started.primary,
          others: started.others.map(({ started: begun, run }, index) => ({ started: begun, outcome: run.then((done) => this.#otherOutcome(job, done, index)) })),
          ...(requestBody === undefined ? {} : { requestBody }),
          requestComplete: () => true,
        };
      },
      answer: async (primary, completion) => {
        const answer = await this.#answer(job, primary, sender);
        await completion.answered(primary, answer.response, answer.mediator);
        return answer.reply;
      },
      refuse: (err) => nak(sender, 'AR', err instanceof StoreError ? 'Junction could not store the message; send it again later' : 'Junction could not process the message; send it again later'),
    };
    return runTransaction(
      { log, events, logger, ...(admission === undefined ? {} : { admission }), ...(unfinished === undefined ? {} : { unfinished }) },
      {
        channel,
        fields: { id: job.id, client: job.client, clientIp: job.clientIp, request, ...(job.rerun === undefined ? {} : { rerun: job.rerun }), ...(job.properties === undefined ? {} : { properties: job.properties }) },
        announced: { id: job.id, client: job.client, method: 'POST', path: '/' },
        timeoutMs: channel.timeout ?? limits.defaultTimeoutMs,
      },
      adapter,
    );
  }

  /** Stores a body of this transaction (`<id>-<suffix>`) and resolves with its reference. */
  #store(job: MessageJob, suffix: string, body: Buffer): Promise<BodyRef> {
    const sink = this.#deps.bodies.sink({ day: dayOf(job.receivedAt), channelId: job.channel._id, bodyId: `${job.id}-${suffix}`, capBytes: this.#deps.limits.bodyCapBytes });
    sink.stream.end(body);
    return sink.done;
  }

  /**
   * Stores the reply the sender gets. The route has already acted on the message, so a store that fails here does not
   * turn the reply into a NAK (the sender would send it again): the transaction records the body as not stored, and
   * the error is logged. Any other failure is Junction's own, and propagates.
   */
  async #storeReply(job: MessageJob, reply: Buffer): Promise<{ body?: BodyRef; bodyNotStored?: true }> {
    try {
      return { body: await this.#store(job, 'res', reply) };
    } catch (err) {
      if (!(err instanceof BodyStoreError)) throw err;
      this.#deps.logger.error({ err, transactionId: job.id, channel: job.channel.name }, 'a reply body could not be stored (the store failed); the transaction records it as not stored');
      return { bodyNotStored: true };
    }
  }

  /** The request a route is sent, as the transaction records it: as an HTTP request for routes that get one, else the message's own headers. */
  #routeRequest(outbound: Outbound, route: RouteRecord, incoming: Record<string, string>): Prepared {
    if (this.#deps.senders[route.type].carries === 'request') return routeRequest(outbound, route);
    return { request: { host: route.host, port: route.port, path: '/', querystring: '', method: 'POST', headers: storedHeaders(incoming), timestamp: new Date() }, headers: incoming, path: '/' };
  }

  /**
   * A route's answer read whole: a message route's reply as it came (refused when it acknowledges another message), an
   * http route's body up to `maxReplyBytes`, and the primary's structured mediator response parsed. Never rejects.
   */
  async #settle(job: MessageJob, run: MessageRun, sender: Sender, signal: AbortSignal): Promise<MessageRun> {
    const { route, request, answer } = run;
    if (answer === undefined) return run;
    try {
      const reply = answer.bytes;
      if (reply === undefined) return await this.#readHttp(job, run, answer, signal);
      const wrong = wrongAcknowledgement(sender.header, reply);
      if (wrong !== undefined) throw new RouteError('connection', `route ${route.name} ${wrong}`);
      const type = isHl7(reply) ? HL7_TYPE : 'application/octet-stream';
      // A negative ACK (AE, AR, CE, CR) stands for a 4xx or 5xx: its MSA and ERR segments are the transaction's reason.
      const head = answer.status >= 400 ? { answerHead: reply.subarray(0, REASON_BODY_BYTES) } : {};
      return { ...run, reply, answer: { status: answer.status, headers: { 'content-type': type }, body: NO_BODY }, ...head };
    } catch (err) {
      answer.body.destroy();
      return { route, request, error: err as Error };
    }
  }

  async #readHttp(job: MessageJob, run: MessageRun, answer: RouteAnswer, signal: AbortSignal): Promise<MessageRun> {
    const { route, request } = run;
    const read = await readUpTo(answer.body, this.#deps.limits.maxReplyBytes, { signal });
    const answeredAt = new Date();
    const shown = { status: answer.status, headers: answer.headers, body: NO_BODY };
    if (read.failure !== undefined || !read.ended) {
      answer.body.destroy();
      const why = read.failure?.error.message ?? `its answer is longer than ${this.#deps.limits.maxReplyBytes} bytes, the most Junction reads for a message channel`;
      return { route, request, answer: shown, answeredAt, brokeOff: new RouteError('connection', `route ${route.name}: ${why}`) };
    }
    const body = Buffer.concat(read.chunks, read.size);
    if (!route.primary || !isStructuredResponse(answer.headers['content-type'])) {
      return { route, request, answer: shown, answeredAt, reply: body, ...(answer.status >= 400 ? { answerHead: body.subarray(0, REASON_BODY_BYTES) } : {}) };
    }
    // A mediator's structured response: the sender gets its response body, the transaction its orchestrations.
    const parsed = parseMediatorResponse(body.toString('utf8'));
    if (!parsed.ok) {
      this.#deps.logger.warn({ transactionId: job.id, channel: job.channel.name, problem: parsed.problem }, 'mediator answered with a malformed structured response');
      return { route, request, answer: shown, answeredAt, reply: body, mediator: { orchestrations: [], properties: {}, reportedError: false, malformed: `the structured response ${parsed.problem}` } };
    }
    const mediator = await mediatorOutcome(parsed.value, { channel: job.channel, answeredAt, sink: (suffix, store) => (store ? this.#deps.bodies.sink({ day: dayOf(job.receivedAt), channelId: job.channel._id, bodyId: `${job.id}-${suffix}`, capBytes: this.#deps.limits.bodyCapBytes }) : undefined) });
    const { response } = parsed.value;
    return { route, request, answer: { status: response.status, headers: { ...response.headers }, body: NO_BODY }, answeredAt, reply: Buffer.from(response.body, 'utf8'), mediator };
  }

  /** Another route's outcome: its reply stored as its response body. Never rejects. */
  async #otherOutcome(job: MessageJob, run: MessageRun, index: number): Promise<OtherOutcome> {
    if (run.reply === undefined || !job.channel.responseBody) return { run };
    try {
      return { run, body: await this.#store(job, `r${index + 1}`, run.reply) };
    } catch (err) {
      this.#deps.logger.error({ err, transactionId: job.id }, 'a route reply could not be stored; the transaction records it as not stored');
      return err instanceof BodyStoreError ? { run, bodyNotStored: true } : { run };
    }
  }

  /** What the sender gets (acks.ts), and the response the transaction records (its body stored first). */
  async #answer(job: MessageJob, primary: MessageRun, sender: Sender): Promise<Answer> {
    const at = new Date();
    const { reply, status, contentType } = replyFor(primary, sender);
    const stored = reply !== null && job.channel.responseBody ? await this.#storeReply(job, reply) : {};
    const headers: Record<string, string> = contentType === undefined ? {} : { 'content-type': contentType };
    const response: TransactionResponse = { status, headers, timestamp: primary.answeredAt ?? at, ...stored };
    return { reply, response, ...(primary.mediator === undefined ? {} : { mediator: primary.mediator }) };
  }
}
