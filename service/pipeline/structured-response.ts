/**
 * Step 5b, for mediators: the primary route answered with a structured response (`application/json+service` or
 * `application/json+openhim`). The client gets the mediator's `response`; its orchestrations (with their bodies in
 * body files), properties, status and error are kept for the transaction. A body that breaks the contract is passed
 * to the client as it came and recorded as a failure, never as a success.
 */
import { parseMediatorResponse, reportsError } from '../domain/channels/mediator-response.js';
import type { MediatorError, MediatorResponse, Orchestration } from '../domain/channels/mediator-response.js';
import { storedHeaders } from '../domain/transactions/stored-headers.js';
import type { TransactionStatus } from '../domain/transactions/transaction-status.js';
import type { BodyRef, BodySink } from '../storage/bodies/bodies.js';
import type { ExchangeRecord, TransactionRequest, TransactionResponse } from '../storage/transactions.js';
import type { RouteAnswer } from '../routing/http.js';
import { readUpTo } from '../streams/relay.js';
import type { Read } from '../streams/relay.js';
import { answerBrokenRead, sendPrimary } from './respond.js';
import type { Answering, Shown } from './respond.js';

/** What the mediator said about the transaction, for the second write. */
export interface MediatorOutcome {
  /** The mediator's own status, which overrides the computed one. */
  status?: TransactionStatus;
  orchestrations: ExchangeRecord[];
  properties: Record<string, string>;
  error?: MediatorError;
  /** An error at the top level or in an orchestration: queues an auto retry when the channel has it on. */
  reportedError: boolean;
  /** Why the body could not be used; the client got the raw response. */
  malformed?: string;
}

/** Opens a body file for `<transaction id>-<suffix>`, or returns undefined when the body is not to be stored. */
export type SinkFactory = (suffix: string, store: boolean) => BodySink | undefined;

export interface StructuredInput extends Omit<Answering, 'sink' | 'commit'> {
  answer: RouteAnswer;
  answeredAt: Date;
  sink: SinkFactory;
  /** Records the client's answer with what the mediator said (see respond.ts `Commit`). */
  commit: (response: TransactionResponse, brokeOff: Error | undefined, mediator: MediatorOutcome | undefined) => Promise<void>;
}

async function storeText(sink: BodySink | undefined, text: string | undefined): Promise<BodyRef | undefined> {
  if (sink === undefined || text === undefined) return undefined;
  sink.stream.end(Buffer.from(text, 'utf8'));
  return sink.done;
}

/** Where a mediator's orchestration bodies go: the channel's body settings, its sink factory and the answer's time. */
export interface OrchestrationStorage {
  channel: StructuredInput['channel'];
  sink: SinkFactory;
  answeredAt: Date;
}

async function orchestrationRecord(o: Orchestration, index: number, input: OrchestrationStorage): Promise<ExchangeRecord> {
  const { channel, sink, answeredAt } = input;
  const { body: requestText, timestamp: requestTime, ...request } = o.request;
  const requestBody = await storeText(sink(`o${index + 1}-req`, channel.requestBody && requestText !== undefined), requestText);
  const stored: TransactionRequest = { ...request, timestamp: requestTime ?? answeredAt, ...(requestBody === undefined ? {} : { body: requestBody }) };
  const record: ExchangeRecord = { name: o.name, request: stored };
  if (o.response !== undefined) {
    const { body: responseText, timestamp: responseTime, ...response } = o.response;
    const responseBody = await storeText(sink(`o${index + 1}-res`, channel.responseBody && responseText !== undefined), responseText);
    record.response = { ...response, timestamp: responseTime ?? answeredAt, ...(responseBody === undefined ? {} : { body: responseBody }) };
  }
  if (o.error !== undefined) record.error = o.error;
  return record;
}

/** The ordinary answer path for this mediator answer, recording `mediator` with it. */
function answering(input: StructuredInput, sink: BodySink | undefined, mediator: MediatorOutcome | undefined): Answering {
  const { sink: _factory, commit, ...rest } = input;
  return { ...rest, ...(sink === undefined ? {} : { sink }), commit: (response, brokeOff) => commit(response, brokeOff, mediator) };
}

/** Sends the raw answer (already partly read) through the ordinary path, and records why it was not used. */
async function passRaw(input: StructuredInput, shown: Shown, read: Read, malformed: string): Promise<void> {
  const { ctx, channel, answer, sink, logger } = input;
  logger.warn({ transactionId: ctx.id, channel: channel.name, problem: malformed }, 'mediator answered with a malformed structured response; the client got it unchanged');
  const mediator: MediatorOutcome = { orchestrations: [], properties: {}, reportedError: false, malformed };
  await sendPrimary(answering(input, sink('res', channel.responseBody), mediator), answer, shown, read);
}

/** What the transaction keeps of a well-formed mediator response: orchestrations (bodies stored), properties, status, error. */
export async function mediatorOutcome(value: MediatorResponse, storage: OrchestrationStorage): Promise<MediatorOutcome> {
  const orchestrations: ExchangeRecord[] = [];
  for (const [i, o] of value.orchestrations.entries()) orchestrations.push(await orchestrationRecord(o, i, storage));
  const mediator: MediatorOutcome = { orchestrations, properties: value.properties, reportedError: reportsError(value) };
  if (value.status !== undefined) mediator.status = value.status;
  if (value.error !== undefined) mediator.error = value.error;
  return mediator;
}

/** Answers the client from a structured mediator response, recording what the transaction keeps of it first. */
export async function answerStructured(input: StructuredInput): Promise<void> {
  const { ctx, channel, answer, answeredAt, sink, capBytes, logger } = input;
  const shown: Shown = { status: answer.status, headers: storedHeaders(answer.headers), timestamp: answeredAt };
  const read = await readUpTo(answer.body, capBytes, { ...input, res: ctx.res });
  if (read.failure !== undefined) {
    await answerBrokenRead(answering(input, undefined, undefined), shown, read.failure);
    return;
  }
  if (!read.ended) {
    await passRaw(input, shown, read, `the structured response is larger than ${capBytes} bytes, the most Junction reads`);
    return;
  }
  const parsed = parseMediatorResponse(Buffer.concat(read.chunks).toString('utf8'));
  if (!parsed.ok) {
    await passRaw(input, shown, read, `the structured response ${parsed.problem}`);
    return;
  }
  const value: MediatorResponse = parsed.value;
  if (value.skippedProperties.length > 0) {
    logger.warn({ transactionId: ctx.id, urn: value.urn, properties: value.skippedProperties }, 'mediator properties left out: names must have no dot or leading $, values must be text');
  }

  // The orchestrations are part of the record committed before the client's answer leaves.
  const mediator = await mediatorOutcome(value, input);

  const body = Buffer.from(value.response.body, 'utf8');
  const headers = { ...value.response.headers, 'content-length': String(body.length) };
  // Header names with a dot or a leading $ can be sent but not stored as field names.
  const recorded = Object.fromEntries(Object.entries(storedHeaders(value.response.headers)).filter(([name]) => !name.includes('.') && !name.startsWith('$')));
  // The ordinary answer path applies the channel's URL rewriting and the transaction id header here too.
  await sendPrimary(
    answering(input, sink('res', channel.responseBody), mediator),
    { status: value.response.status, headers, body: answer.body },
    { status: value.response.status, headers: recorded, timestamp: value.response.timestamp ?? answeredAt },
    { chunks: [body], size: body.length, ended: true },
  );
}
