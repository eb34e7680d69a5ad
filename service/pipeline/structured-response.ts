/**
 * Step 5b, for mediators: the primary route answered with a structured response (`application/json+service` or
 * `application/json+openhim`). The client gets the mediator's `response`; its orchestrations (with their bodies in
 * body files), properties, status and error are kept for the transaction. A body that breaks the contract is passed
 * to the client as it came and recorded as a failure, never as a success.
 */
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { parseMediatorResponse, reportsError } from '../domain/mediator-response.js';
import type { MediatorError, MediatorResponse, Orchestration } from '../domain/mediator-response.js';
import type { TransactionStatus } from '../domain/transaction-status.js';
import type { BodyRef, BodySink } from '../storage/bodies/body-files.js';
import type { ChannelRecord } from '../storage/records.js';
import type { ExchangeRecord, TransactionRequest, TransactionResponse } from '../storage/transactions.js';
import type { RouteAnswer } from '../routing/http.js';
import type { TransactionContext } from './context.js';
import { sendPrimary } from './respond.js';
import { storedHeaders } from './store-request.js';

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

export interface StructuredInput {
  ctx: TransactionContext;
  channel: ChannelRecord;
  answer: RouteAnswer;
  answeredAt: Date;
  sink: SinkFactory;
  /** Largest structured body parsed (and largest body stored); a longer one is passed through raw. */
  capBytes: number;
  logger: Logger;
}

/** Reads at most `cap` bytes; `rest` continues the stream when it was longer. */
async function readUpTo(body: Readable, cap: number): Promise<{ chunks: Buffer[]; size: number; rest?: AsyncIterator<Buffer> }> {
  const iterator = (body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let size = 0;
  for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) {
    chunks.push(next.value);
    size += next.value.length;
    if (size > cap) return { chunks, size, rest: iterator };
  }
  return { chunks, size };
}

async function storeText(sink: BodySink | undefined, text: string | undefined): Promise<BodyRef | undefined> {
  if (sink === undefined || text === undefined) return undefined;
  sink.stream.end(Buffer.from(text, 'utf8'));
  return sink.done;
}

async function orchestrationRecord(o: Orchestration, index: number, input: StructuredInput): Promise<ExchangeRecord> {
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

/** Sends the raw answer (already partly read) through the ordinary path, and records why it was not used. */
async function passRaw(input: StructuredInput, chunks: Buffer[], rest: AsyncIterator<Buffer> | undefined, malformed: string): Promise<{ response: TransactionResponse; mediator: MediatorOutcome }> {
  const { ctx, channel, answer, answeredAt, sink, capBytes, logger } = input;
  logger.warn({ transactionId: ctx.id, channel: channel.name, problem: malformed }, 'mediator answered with a malformed structured response; the client got it unchanged');
  const body = Readable.from(
    (async function* () {
      yield* chunks;
      if (rest !== undefined) for (let next = await rest.next(); next.done !== true; next = await rest.next()) yield next.value;
    })(),
  );
  const responseSink = sink('res', channel.responseBody);
  await sendPrimary(ctx, channel, { ...answer, body }, responseSink?.stream, capBytes);
  const stored = await responseSink?.done;
  return {
    response: { status: answer.status, headers: storedHeaders(answer.headers), timestamp: answeredAt, ...(stored === undefined ? {} : { body: stored }) },
    mediator: { orchestrations: [], properties: {}, reportedError: false, malformed },
  };
}

/** Answers the client from a structured mediator response and returns what the transaction records of it. */
export async function answerStructured(input: StructuredInput): Promise<{ response: TransactionResponse; mediator: MediatorOutcome }> {
  const { ctx, channel, answer, answeredAt, sink, capBytes, logger } = input;
  const read = await readUpTo(answer.body, capBytes);
  if (read.rest !== undefined) return passRaw(input, read.chunks, read.rest, `the structured response is larger than ${capBytes} bytes, the most Junction reads`);
  const parsed = parseMediatorResponse(Buffer.concat(read.chunks).toString('utf8'));
  if (!parsed.ok) return passRaw(input, read.chunks, undefined, `the structured response ${parsed.problem}`);
  const value: MediatorResponse = parsed.value;
  if (value.skippedProperties.length > 0) {
    logger.warn({ transactionId: ctx.id, urn: value.urn, properties: value.skippedProperties }, 'mediator properties left out: names must have no dot or leading $, values must be text');
  }

  const body = Buffer.from(value.response.body, 'utf8');
  const headers = { ...value.response.headers, 'content-length': String(body.length) };
  const responseSink = sink('res', channel.responseBody);
  // The ordinary answer path applies the channel's URL rewriting and the transaction id header here too.
  await sendPrimary(ctx, channel, { status: value.response.status, headers, body: Readable.from([body]) }, responseSink?.stream, capBytes);
  const stored = await responseSink?.done;

  const orchestrations: ExchangeRecord[] = [];
  for (const [i, o] of value.orchestrations.entries()) orchestrations.push(await orchestrationRecord(o, i, input));
  const mediator: MediatorOutcome = { orchestrations, properties: value.properties, reportedError: reportsError(value) };
  if (value.status !== undefined) mediator.status = value.status;
  if (value.error !== undefined) mediator.error = value.error;
  // Header names with a dot or a leading $ can be sent but not stored as field names.
  const recorded = Object.fromEntries(Object.entries(storedHeaders(value.response.headers)).filter(([name]) => !name.includes('.') && !name.startsWith('$')));
  return {
    response: { status: value.response.status, headers: recorded, timestamp: value.response.timestamp ?? answeredAt, ...(stored === undefined ? {} : { body: stored }) },
    mediator,
  };
}
