/**
 * The structured response a mediator may answer with (SPEC.md "Mediator request/response contract"): recognising it
 * by content type, and turning its JSON into checked values. Anything that does not follow the contract is reported
 * as one problem naming the field, so the pipeline can record it instead of passing it off as a success. Pure.
 */
import { isTransactionStatus, TRANSACTION_STATUSES } from '../transactions/transaction-status.js';
import type { TransactionStatus } from '../transactions/transaction-status.js';
import { responseHeaders } from './route-request.js';
import { isPlainObject } from '../util/plain-object.js';

/** SPEC.md names the first; mediators in the field send the second (COMPAT.md). */
export const STRUCTURED_CONTENT_TYPES = ['application/json+service', 'application/json+openhim'] as const;

export interface MediatorError {
  message: string;
  stack?: string;
}

export interface OrchestrationRequest {
  host?: string;
  port?: number;
  path: string;
  querystring: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  timestamp?: Date;
}

export interface OrchestrationResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
  timestamp?: Date;
}

export interface Orchestration {
  name: string;
  request: OrchestrationRequest;
  response?: OrchestrationResponse;
  error?: MediatorError;
}

export interface MediatorResponse {
  urn: string;
  /** The mediator's own transaction status, which overrides the computed one. */
  status?: TransactionStatus;
  /** What the client receives. Headers are safe to send (hop-by-hop and framing headers removed). */
  response: { status: number; headers: Record<string, string>; body: string; timestamp?: Date };
  orchestrations: Orchestration[];
  properties: Record<string, string>;
  /** Property names left out because they cannot be stored or filtered on (a dot, a leading $, not text). */
  skippedProperties: string[];
  error?: MediatorError;
}

export type MediatorResponseResult = { ok: true; value: MediatorResponse } | { ok: false; problem: string };

/** True when a response's content type marks it as a structured mediator response. */
export function isStructuredResponse(contentType: string | string[] | undefined): boolean {
  const first = Array.isArray(contentType) ? contentType[0] : contentType;
  const type = first?.split(';')[0]?.trim().toLowerCase() ?? '';
  return (STRUCTURED_CONTENT_TYPES as readonly string[]).includes(type);
}

/** Thrown inside the parser only; becomes the `problem` of the result. */
class Malformed extends Error {}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// What Node accepts in a header value; anything else would make writing the answer throw.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const STORABLE_NAME = /^[^.$][^.]{0,99}$/;

/** A header or property value as text: lists joined as HTTP joins repeated headers, anything else as JSON. */
function text(value: unknown): string {
  if (Array.isArray(value)) return value.map(text).join(', ');
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

function fail(at: string, message: string): never {
  throw new Malformed(`${at} ${message}`);
}

function optionalString(value: unknown, at: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') fail(at, 'must be a string');
  return value;
}

function bodyText(value: unknown, at: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  // OpenHIM serialises an object body as JSON, and mediators in the field rely on it.
  if (typeof value === 'object') return JSON.stringify(value);
  return fail(at, 'must be a string');
}

function timestamp(value: unknown, at: string): Date | undefined {
  if (value === undefined || value === null) return undefined;
  const date = typeof value === 'string' || typeof value === 'number' ? new Date(value) : null;
  if (date === null || Number.isNaN(date.getTime())) fail(at, 'must be an ISO 8601 date or epoch milliseconds');
  return date;
}

function integer(value: unknown, at: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) fail(at, `must be an integer from ${min} to ${max}`);
  return value;
}

/** Header values as text; names that cannot be stored are dropped (they only describe a call already made). */
function recordedHeaders(value: unknown, at: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) fail(at, 'must be an object of header names and values');
  const headers: Record<string, string> = {};
  for (const [name, v] of Object.entries(value)) {
    if (v === undefined || v === null || !STORABLE_NAME.test(name) || name === '__proto__') continue;
    headers[name.toLowerCase()] = text(v);
  }
  return headers;
}

/** Headers for the client: every name a valid token and every value sendable, else the response is malformed. */
function clientHeaders(value: unknown, at: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) fail(at, 'must be an object of header names and values');
  const headers: Record<string, string> = {};
  for (const [name, v] of Object.entries(value)) {
    if (v === undefined || v === null) continue;
    if (!TOKEN.test(name)) fail(`${at}.${name}`, 'is not a valid header name');
    const value = text(v);
    if (!HEADER_VALUE.test(value)) fail(`${at}.${name}`, 'has characters a header value cannot carry');
    headers[name.toLowerCase()] = value;
  }
  // Junction frames the body itself; the mediator's framing headers describe its own connection.
  const sendable = responseHeaders(headers) as Record<string, string>;
  delete sendable['content-length'];
  return sendable;
}

function mediatorError(value: unknown, at: string): MediatorError | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return { message: value };
  if (!isPlainObject(value)) fail(at, 'must be an object with a message');
  const message = value.message;
  if (typeof message !== 'string') fail(`${at}.message`, 'must be a string');
  const stack = optionalString(value.stack, `${at}.stack`);
  return stack === undefined ? { message } : { message, stack };
}

function orchestration(value: unknown, at: string): Orchestration {
  if (!isPlainObject(value)) fail(at, 'must be an object with a name and a request');
  const name = value.name;
  if (typeof name !== 'string' || name === '') fail(`${at}.name`, 'must be a non-empty string');
  const req = value.request;
  if (!isPlainObject(req)) fail(`${at}.request`, 'must be an object');
  const request: OrchestrationRequest = {
    path: optionalString(req.path, `${at}.request.path`) ?? '',
    querystring: optionalString(req.querystring, `${at}.request.querystring`) ?? '',
    method: (optionalString(req.method, `${at}.request.method`) ?? '').toUpperCase(),
    headers: recordedHeaders(req.headers, `${at}.request.headers`),
  };
  const host = optionalString(req.host, `${at}.request.host`);
  if (host !== undefined) request.host = host;
  if (req.port !== undefined && req.port !== null) request.port = integer(typeof req.port === 'string' ? Number(req.port) : req.port, `${at}.request.port`, 1, 65535);
  const requestBody = bodyText(req.body, `${at}.request.body`);
  if (requestBody !== undefined) request.body = requestBody;
  const requestTime = timestamp(req.timestamp, `${at}.request.timestamp`);
  if (requestTime !== undefined) request.timestamp = requestTime;
  const result: Orchestration = { name, request };
  const res = value.response;
  if (res !== undefined && res !== null) {
    if (!isPlainObject(res)) fail(`${at}.response`, 'must be an object');
    const response: OrchestrationResponse = { status: integer(res.status, `${at}.response.status`, 0, 999), headers: recordedHeaders(res.headers, `${at}.response.headers`) };
    const responseBody = bodyText(res.body, `${at}.response.body`);
    if (responseBody !== undefined) response.body = responseBody;
    const responseTime = timestamp(res.timestamp, `${at}.response.timestamp`);
    if (responseTime !== undefined) response.timestamp = responseTime;
    result.response = response;
  }
  const error = mediatorError(value.error, `${at}.error`);
  if (error !== undefined) result.error = error;
  return result;
}

function properties(value: unknown): { properties: Record<string, string>; skipped: string[] } {
  const kept: Record<string, string> = {};
  const skipped: string[] = [];
  if (value === undefined || value === null) return { properties: kept, skipped };
  if (!isPlainObject(value)) fail('properties', 'must be an object of names and text values');
  for (const [name, v] of Object.entries(value)) {
    if (v === null || v === undefined) continue;
    // Properties are metadata for filtering; one odd entry should not throw away the mediator's whole answer.
    if (!STORABLE_NAME.test(name) || name === '__proto__' || typeof v === 'object') skipped.push(name);
    else kept[name] = text(v);
  }
  return { properties: kept, skipped };
}

function parse(text: string): MediatorResponse {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Malformed(`is not valid JSON (${(err as Error).message})`);
  }
  if (!isPlainObject(doc)) fail('the body', 'must be a JSON object');
  const urn = doc['x-mediator-urn'];
  if (typeof urn !== 'string' || urn === '') fail('x-mediator-urn', 'is required: the urn of the mediator');
  let status: TransactionStatus | undefined;
  if (doc.status !== undefined && doc.status !== null) {
    if (!isTransactionStatus(doc.status)) fail('status', `must be one of: ${TRANSACTION_STATUSES.map((s) => JSON.stringify(s)).join(', ')}`);
    status = doc.status;
  }
  const res = doc.response;
  if (!isPlainObject(res)) fail('response', 'is required: an object with status, headers and body');
  const response: MediatorResponse['response'] = {
    status: integer(res.status, 'response.status', 100, 599),
    headers: clientHeaders(res.headers, 'response.headers'),
    body: bodyText(res.body, 'response.body') ?? '',
  };
  const answeredAt = timestamp(res.timestamp, 'response.timestamp');
  if (answeredAt !== undefined) response.timestamp = answeredAt;
  const list = doc.orchestrations ?? [];
  if (!Array.isArray(list)) fail('orchestrations', 'must be an array');
  const orchestrations = list.map((o: unknown, i) => orchestration(o, `orchestrations.${i}`));
  const props = properties(doc.properties);
  const parsed: MediatorResponse = { urn, response, orchestrations, properties: props.properties, skippedProperties: props.skipped };
  if (status !== undefined) parsed.status = status;
  const error = mediatorError(doc.error, 'error');
  if (error !== undefined) parsed.error = error;
  return parsed;
}

/** Parses and checks a structured mediator response body. */
export function parseMediatorResponse(text: string): MediatorResponseResult {
  try {
    return { ok: true, value: parse(text) };
  } catch (err) {
    if (err instanceof Malformed) return { ok: false, problem: err.message };
    throw err;
  }
}

/** True when the mediator reported an error, at the top level or in any orchestration (the auto-retry trigger). */
export function reportsError(response: MediatorResponse): boolean {
  return response.error !== undefined || response.orchestrations.some((o) => o.error !== undefined);
}
