/**
 * The message path: tcp and tls channels (HL7 v2 over MLLP, or one message per connection). The listener
 * (transports/sockets.ts) hands over one whole message; this path does for it what the HTTP path does for a request,
 * with the message in memory (it is bounded by `tcp.maxMessageBytes`):
 *
 * 1. admit: the client from its TLS certificate (authenticate.ts), then the channel's allow list and whitelist
 *    (authorise.ts, as for HTTP);
 * 2. store the Processing transaction (store-request.ts), then the same fan-out as HTTP (route.ts `startWhole`,
 *    through the route kind table): `http` routes get the message as a POST body (so HTTP mediators work behind MLLP
 *    channels), `mllp` and `tcp` routes as the message; this path only reads each answer whole (`#settle`);
 * 3. answer: the primary route's reply, or an HL7 ACK Junction builds from the inbound header (AE or AR with the
 *    reason) when the primary failed, timed out, was unreachable, or answered with an error and no HL7 of its own;
 * 4. commit the outcome before the reply leaves (complete.ts, shared with the HTTP path), then the final write once
 *    the other routes are done.
 *
 * An HL7 ACK reply is the route's outcome (domain/codecs/hl7.ts `statusOfAck`): AA/CA count as 2xx, AE/CE as 4xx, AR/CR
 * as 5xx, so the transaction's status follows SPEC.md's table as for HTTP. Re-runs and auto retries enter at step 2
 * (`replay`), with no connection to answer.
 */
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { RefusedNodeAudit } from '../audit/refused-nodes.js';
import { AppError } from '../errors.js';
import { ackBytes, negativeAck, positiveAck, readHeader, UNKNOWN_SENDER, wrongAcknowledgement } from '../domain/codecs/hl7.js';
import type { Hl7Header } from '../domain/codecs/hl7.js';
import { ianaCharsetOf } from '../domain/codecs/hl7-charsets.js';
import { isStructuredResponse, parseMediatorResponse } from '../domain/channels/mediator-response.js';
import { storedHeaders } from '../domain/transactions/stored-headers.js';
import type { TransactionStatus } from '../domain/transactions/transaction-status.js';
import type { LiveEvents } from '../events/live.js';
import { RouteError } from '../routing/http.js';
import type { RouteAnswer } from '../routing/http.js';
import type { RouteSenders } from '../routing/senders.js';
import { BodyStoreError, dayOf } from '../storage/bodies/bodies.js';
import type { Bodies, BodyRef } from '../storage/bodies/bodies.js';
import type { ChannelRecord, ClientRecord, RouteRecord } from '../storage/records.js';
import { StoreError } from '../storage/store.js';
import type { TransactionIdFactory, TransactionLog, TransactionRecord, TransactionRequest, TransactionResponse } from '../storage/transactions.js';
import { readUpTo } from '../streams/relay.js';
import type { Admission } from './admission.js';
import type { ClientAuthenticator } from './authenticate.js';
import { mayUse } from './authorise.js';
import { announceCompleted, Completion, markFailed } from './complete.js';
import { storeTransaction } from './store-request.js';
import type { RerunOrigin } from './context.js';
import type { InboundMessage, MessageHandler, MessageReply } from './inbound-message.js';
import { routeRequest, startWhole } from './route.js';
import type { Outbound, Prepared, RouteRun } from './route.js';
import type { OtherOutcome } from './store-response.js';
import { mediatorOutcome } from './structured-response.js';
import type { MediatorOutcome } from './structured-response.js';
import { STALL_GRACE_MS } from './watchdog.js';
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
  /** Where every refused message is recorded (issue 35): one call per refusal site below. */
  refusals?: RefusalSink;
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
const HL7_TYPE = 'application/hl7-v2';
// ACK control ids: Junction's own, unique within a process run, readable in logs.
let ackCounter = 0;

// Each unknown MSH-18 name is logged once per channel; past this many pairs the memory of them starts over.
const MAX_UNKNOWN_CHARSETS_LOGGED = 1000;

/**
 * How a message is described to HTTP routes and in the stored request: HL7 v2 with its character set's IANA name, or
 * bytes. `unknown` is the MSH-18 value when it names no IANA charset: the type then has no charset parameter.
 */
function contentTypeOf(header: Hl7Header | null): { contentType: string; unknown?: string } {
  if (header === null) return { contentType: 'application/octet-stream' };
  if (header.characterSet === '') return { contentType: HL7_TYPE };
  const iana = ianaCharsetOf(header.characterSet);
  return iana === null ? { contentType: HL7_TYPE, unknown: header.characterSet } : { contentType: `${HL7_TYPE}; charset=${iana}` };
}

const isHl7 = (body: Buffer): boolean => readHeader(body) !== null;

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

  /** Steps 1–4 for a message from a connection: resolves with the reply once the outcome is committed. Never rejects. */
  async handle(inbound: InboundMessage): Promise<MessageReply> {
    const { channel, message, peer } = inbound;
    const header = readHeader(message);
    const refused = this.#deps.admission?.refusal();
    // Before anything is written; the watcher logs the refusing once per episode, not once per message.
    if (refused !== undefined) this.#deps.refusals?.refusedWith({ code: 'STORE_UNAVAILABLE', message: refused }, messageRefusedAt(inbound));
    if (refused !== undefined) return { reply: this.#nak(header, inbound.framing === 'mllp', 'AR', `Junction is not accepting messages: ${refused}`) };
    let client: ClientRecord | null;
    try {
      client = await this.#admit(inbound);
    } catch (err) {
      const reason = err instanceof AppError ? err.message : 'Junction could not check the sender';
      if (!(err instanceof AppError)) this.#deps.logger.error({ err, channel: channel.name }, 'a message could not be admitted');
      else this.#deps.logger.info({ channel: channel.name, peer: peer.address, reason }, 'message refused');
      if (err instanceof AppError) this.#deps.refusals?.refusedWith(err, messageRefusedAt(inbound));
      return { reply: this.#nak(header, inbound.framing === 'mllp', 'AR', reason) };
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
    const { reply, finished } = await this.#run(job, header, inbound.framing === 'mllp');
    this.#track(finished);
    return { reply, transactionId: job.id };
  }

  /** Steps 2–4 for a re-run or an auto retry: resolves once the transaction is final. Never rejects. */
  async replay(job: MessageJob): Promise<void> {
    const { finished } = await this.#run(job, readHeader(job.message), true);
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

  /** Step 1: the client (from its certificate), then may it, or its address, use the channel. Throws an AppError. */
  async #admit(inbound: InboundMessage): Promise<ClientRecord | null> {
    const { channel, peer } = inbound;
    const result = await this.#deps.clientAuth.authenticate({ ...(peer.certificate === undefined ? {} : { peer: peer.certificate }), address: peer.address });
    if (result.outcome === 'throttled') {
      throw new AppError('CLIENT_THROTTLED', `too many failed authentications from ${peer.address}; try again in ${result.retryAfterSeconds} s`);
    }
    if (result.outcome === 'refused') throw new AppError('CLIENT_UNAUTHENTICATED', `the client certificate was refused: ${result.reason}`);
    const client = result.outcome === 'authenticated' ? result.client : null;
    if (channel.requireClientCertificate === true && client === null) {
      throw await this.#refusedNode(inbound, new AppError('CLIENT_UNAUTHENTICATED', `channel ${channel.name} requires a client certificate registered to a client`));
    }
    if (!mayUse({ client, clientIp: peer.address }, channel)) {
      throw await this.#refusedNode(inbound, new AppError('CLIENT_NOT_AUTHORISED', `${client === null ? `address ${peer.address}` : `client ${client.clientID}`} may not use channel ${channel.name}`));
    }
    return client;
  }

  /** Audits a sender refused on the channel (node authentication) and gives back the refusal to throw. */
  async #refusedNode(inbound: InboundMessage, refusal: AppError): Promise<AppError> {
    await this.#deps.refusedNodes?.refused({ address: inbound.peer.address, channel: inbound.channel.name, reason: refusal.message });
    return refusal;
  }

  /** A negative ACK for the sender; null when the message is not HL7 and the sender did not frame it as MLLP. */
  #nak(header: Hl7Header | null, framed: boolean, code: 'AE' | 'AR', reason: string): Buffer | null {
    if (header === null && !framed) return null;
    return ackBytes(negativeAck(header ?? UNKNOWN_SENDER, { code, reason, controlId: this.#ackId(), at: new Date() }));
  }

  #ackId(): string {
    ackCounter = (ackCounter + 1) % 1e9;
    return `JN${Date.now().toString(36)}${ackCounter.toString(36)}`;
  }

  /**
   * Steps 2–4: resolves with the reply once the outcome is committed; `finished` settles when the transaction is final
   * (other routes done). Neither rejects.
   */
  async #run(job: MessageJob, header: Hl7Header | null, framed: boolean): Promise<{ reply: Buffer | null; finished: Promise<void> }> {
    const { log, events, logger, limits } = this.#deps;
    const { channel, message } = job;
    const { contentType, unknown } = contentTypeOf(header);
    if (unknown !== undefined) this.#unknownCharset(channel.name, unknown);
    const request: TransactionRequest = {
      host: job.local.address,
      port: job.local.port,
      path: '/',
      querystring: '',
      method: 'POST',
      headers: { 'content-type': contentType, 'content-length': String(message.length) },
      timestamp: job.receivedAt,
    };
    try {
      await storeTransaction(log, { id: job.id, channel, client: job.client, clientIp: job.clientIp, request, ...(job.rerun === undefined ? {} : { rerun: job.rerun }) });
    } catch (err) {
      this.#deps.admission?.storeFailed();
      logger.error({ err, channel: channel.name }, 'a message could not be stored; the sender was told to send it again');
      return { reply: this.#nak(header, framed, 'AR', 'Junction could not store the message; send it again later'), finished: Promise.resolve() };
    }
    events.emit('transaction.started', { transactionId: job.id, channelID: channel._id, status: 'Processing', method: 'POST', path: '/' });

    const timeoutMs = channel.timeout ?? limits.defaultTimeoutMs;
    // The senders honour the timeout themselves; this bounds anything else, so no message waits forever.
    const abort = new AbortController();
    const guard = setTimeout(() => abort.abort(new RouteError('timeout', `nothing was answered within ${timeoutMs + STALL_GRACE_MS} ms`)), timeoutMs + STALL_GRACE_MS);
    guard.unref();
    let completion: Completion | undefined;
    try {
      const requestBody = channel.requestBody ? this.#store(job, 'req', message) : undefined;
      const routes = channel.routes.filter((r) => r.status === 'enabled');
      const incoming = { 'content-type': contentType, 'content-length': String(message.length) };
      // Described to the fan-out as a POST of the message to `/`, which is how http routes get it.
      const outbound: Outbound = { id: job.id, clientIp: job.clientIp, method: 'POST', path: '/', querystring: '', req: { headers: incoming } };
      const started = startWhole(outbound, message, routes, {
        senders: this.#deps.senders,
        timeoutMs,
        signal: abort.signal,
        touch: () => undefined,
        prepare: (route) => this.#routeRequest(outbound, route, incoming),
        settle: (run) => this.#settle(job, run, header, abort.signal),
      });
      const others = started.others.map(({ started: begun, run }, index) => ({ started: begun, outcome: run.then((done) => this.#otherOutcome(job, done, index)) }));
      completion = new Completion({ log, id: job.id, channel, request, others, ...(requestBody === undefined ? {} : { requestBody }), requestComplete: () => true });
      const primaryRun = await started.primary;
      const answer = await this.#answer(job, primaryRun, header, framed);
      await completion.answered(primaryRun, answer.response, answer.mediator);
      const done = completion;
      const finished = done
        .finished()
        .then((record) => this.#completed(job, record?.status ?? 'Failed', record))
        .catch((err: unknown) => this.#failed(job, err))
        .finally(() => clearTimeout(guard));
      return { reply: answer.reply, finished };
    } catch (err) {
      clearTimeout(guard);
      completion?.abandon();
      await this.#failed(job, err);
      if (err instanceof StoreError) this.#deps.admission?.storeFailed();
      const why = err instanceof StoreError ? 'Junction could not store the message; send it again later' : 'Junction could not process the message; send it again later';
      return { reply: this.#nak(header, framed, 'AR', why), finished: Promise.resolve() };
    }
  }

  /** A defect or a storage failure: the transaction is marked Failed and announced, so it never stays Processing. */
  async #failed(job: MessageJob, err: unknown): Promise<void> {
    this.#deps.logger.error({ err, transactionId: job.id, channel: job.channel.name }, 'a message failed inside Junction');
    const record = await markFailed(this.#deps.log, this.#deps.logger, job.id, (err as Error).message);
    this.#completed(job, 'Failed', record);
  }

  #completed(job: MessageJob, status: TransactionStatus, record: TransactionRecord | null): void {
    announceCompleted(this.#deps.events, { id: job.id, client: job.client, method: 'POST', path: '/' }, job.channel, status, record);
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
  async #settle(job: MessageJob, run: MessageRun, header: Hl7Header | null, signal: AbortSignal): Promise<MessageRun> {
    const { route, request, answer } = run;
    if (answer === undefined) return run;
    try {
      const reply = answer.bytes;
      if (reply === undefined) return await this.#readHttp(job, run, answer, signal);
      const wrong = wrongAcknowledgement(header, reply);
      if (wrong !== undefined) throw new RouteError('connection', `route ${route.name} ${wrong}`);
      const type = isHl7(reply) ? HL7_TYPE : 'application/octet-stream';
      return { ...run, reply, answer: { status: answer.status, headers: { 'content-type': type }, body: NO_BODY } };
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
    if (!route.primary || !isStructuredResponse(answer.headers['content-type'])) return { route, request, answer: shown, answeredAt, reply: body };
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

  /** Step 3: what the sender gets, and the response the transaction records (its body stored first). */
  async #answer(job: MessageJob, primary: MessageRun, header: Hl7Header | null, framed: boolean): Promise<Answer> {
    const at = new Date();
    const { reply, status, contentType } = this.#replyFor(primary, header, framed);
    const stored = reply !== null && job.channel.responseBody ? await this.#storeReply(job, reply) : {};
    const headers: Record<string, string> = contentType === undefined ? {} : { 'content-type': contentType };
    const response: TransactionResponse = { status, headers, timestamp: primary.answeredAt ?? at, ...stored };
    return { reply, response, ...(primary.mediator === undefined ? {} : { mediator: primary.mediator }) };
  }

  /**
   * The reply rules (README "ACK rules"): the primary's reply when it has one an HL7 sender can read; an AA ACK when
   * it accepted the message and said nothing; otherwise a negative ACK naming why (AR when the route could not be
   * reached or timed out, AE for a 4xx answer, AR for a 5xx one). A sender that is not speaking HL7 gets the reply as
   * it came, or the connection closed when there is none.
   */
  #replyFor(primary: MessageRun, header: Hl7Header | null, framed: boolean): { reply: Buffer | null; status: number; contentType?: string } {
    const hl7Sender = header !== null || framed;
    const name = `route ${primary.route.name}`;
    const failure = primary.error ?? primary.brokeOff;
    if (primary.answer === undefined || primary.reply === undefined || failure !== undefined) {
      const error = failure ?? new Error('no answer');
      const status = (error as { kind?: string }).kind === 'timeout' ? 504 : primary.answer?.status ?? 500;
      return { reply: this.#nak(header, framed, 'AR', `${name} failed: ${error.message}`), status, ...(hl7Sender ? { contentType: HL7_TYPE } : {}) };
    }
    const { status } = primary.answer;
    const { reply } = primary;
    const replyIsHl7 = isHl7(reply);
    if (!hl7Sender || replyIsHl7) return { reply, status, contentType: replyIsHl7 ? HL7_TYPE : 'application/octet-stream' };
    const ok = status >= 200 && status < 300;
    if (ok && reply.length === 0) return { reply: ackBytes(positiveAck(header ?? UNKNOWN_SENDER, { controlId: this.#ackId(), at: new Date() })), status, contentType: HL7_TYPE };
    if (ok) return { reply, status, contentType: 'application/octet-stream' };
    const said = reply.length === 0 ? '' : `: ${reply.subarray(0, 200).toString('utf8').replace(/\s+/g, ' ').trim()}`;
    return { reply: this.#nak(header, framed, status < 500 ? 'AE' : 'AR', `${name} answered ${status}${said}`), status, contentType: HL7_TYPE };
  }
}
