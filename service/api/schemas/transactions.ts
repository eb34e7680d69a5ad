/**
 * Request and response schemas of the transactions routes (OpenHIM query names). The `filters` JSON is checked by
 * domain/transactions/transaction-access.ts. The answers are the contracts' (contracts/transactions.ts; test/types/ keeps them
 * equal): what permissions shape, so the serializer's dropping of unlisted fields is a second guard.
 */
import { Type } from 'typebox';
import type { Static, TOptional, TSchema } from 'typebox';
import { TRANSACTION_STATUSES } from '../../domain/transactions/transaction-status.js';
import { EitherAnswer, OrNull, Paging, TextMapAnswer } from './common.js';

const Filters = Type.String({ maxLength: 10_000, description: 'a JSON object of OpenHIM transaction filters' });
const Id = Type.String({ minLength: 1, maxLength: 64 });

export const Representation = Type.Enum(['simple', 'simpledetails', 'full', 'fulltruncate', 'bulkrerun'], {
  description: 'how much of each transaction to return; the default leaves out bodies, headers, routes and orchestrations',
});
export type Representation = Static<typeof Representation>;

const KeyParam = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 200, description }));

/** The clinical search (issue 37), on the list, its count and the export; also accepted as keys of `filters`. */
const searchParams = {
  patientId: KeyParam('a patient identifier (PID-3, a FHIR Patient identifier), any case'),
  authority: KeyParam("narrows patientId to one assigning authority (PID-3.4, a FHIR identifier's system)"),
  orderNumber: KeyParam('a placer or filler order number (ORC-2/3, OBR-2/3, a FHIR ServiceRequest, DiagnosticReport or Specimen identifier)'),
  controlId: KeyParam('an HL7 message control id (MSH-10)'),
  messageType: KeyParam('an HL7 message type (MSH-9) such as ADT or ADT^A01'),
  q: KeyParam('a patient ID, an order number or a control ID'),
  text: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'words that must all appear in the request or response body (bodies the caller may read)' })),
};

export const TransactionListQuery = Type.Object(
  {
    ...Paging,
    filterRepresentation: Type.Optional(Representation),
    filters: Type.Optional(Filters),
    ...searchParams,
  },
  { additionalProperties: false },
);
export type TransactionListQuery = Static<typeof TransactionListQuery>;

export const TransactionGetQuery = Type.Object({ filterRepresentation: Type.Optional(Representation) }, { additionalProperties: false });
export type TransactionGetQuery = Static<typeof TransactionGetQuery>;

export const TransactionParams = Type.Object({ id: Id }, { additionalProperties: false });
export const ClientTransactionParams = Type.Object({ clientId: Id }, { additionalProperties: false });

export const ExportQuery = Type.Object(
  {
    format: Type.Optional(Type.Enum(['ndjson', 'csv'])),
    filters: Type.Optional(Filters),
    bodies: Type.Optional(Type.Boolean()),
    ...searchParams,
  },
  { additionalProperties: false },
);
export type ExportQuery = Static<typeof ExportQuery>;

// NeDB cannot store field names with a dot or a leading $, so property keys exclude them.
const Properties = Type.Record(Type.String({ pattern: '^[^.$][^.]{0,99}$' }), Type.String({ maxLength: 2000 }), {
  additionalProperties: false,
  maxProperties: 100,
});

// The bodies of the write routes (contracts/transactions.ts TransactionCreate and TransactionUpdate). Bodies are
// bounded by the router's body limit, checked by transactions/writer.ts, which names the limit.
const strict = { additionalProperties: false };
/** ISO 8601 text with its zone, or epoch milliseconds up to the year 2100 (transaction ids hold 32-bit seconds). */
const Timestamp = Type.Union([Type.String({ format: 'date-time', maxLength: 40 }), Type.Integer({ minimum: 0, maximum: 4_102_444_800_000 })]);
const HeaderMap = Type.Record(Type.String({ pattern: '^[^.$][^.]{0,199}$' }), Type.String({ maxLength: 16_384 }), { additionalProperties: false, maxProperties: 200 });
const Headers = OrNull(Type.Union([HeaderMap, Type.Literal('')]));
const BodyText = OrNull(Type.String());
const Marker = OrNull(Type.Boolean({ description: 'as a GET answers it; the stored body is then kept' }));
const Text = (maxLength: number) => OrNull(Type.String({ maxLength }));

const requestInputFields = {
  host: Text(255),
  port: OrNull(Type.Union([Type.Integer({ minimum: 1, maximum: 65_535 }), Type.String({ pattern: '^[0-9]{1,5}$' })])),
  path: Text(8192),
  querystring: Text(8192),
  method: OrNull(Type.String({ pattern: '^[A-Za-z-]{0,32}$' })),
  headers: Type.Optional(Headers),
  body: Type.Optional(BodyText),
  bodyTruncated: Type.Optional(Marker),
  bodyRemoved: Type.Optional(Marker),
};
const optional = <T extends Record<string, TSchema>>(fields: T) => Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Type.Optional(v)])) as { [K in keyof T]: TOptional<T[K]> };

const RequestInput = Type.Object({ ...optional(requestInputFields), timestamp: Type.Optional(OrNull(Timestamp)) }, strict);
const TransactionRequestInput = Type.Object({ ...optional(requestInputFields), timestamp: Timestamp }, strict);
const ResponseInput = Type.Object(
  {
    status: Type.Union([Type.Integer({ minimum: 100, maximum: 599 }), Type.String({ pattern: '^[1-5][0-9]{2}$' })]),
    headers: Type.Optional(Headers),
    body: Type.Optional(BodyText),
    timestamp: Type.Optional(OrNull(Timestamp)),
    bodyTruncated: Type.Optional(Marker),
    bodyRemoved: Type.Optional(Marker),
  },
  strict,
);
const ErrorInput = Type.Object({ message: Type.String({ maxLength: 10_000 }), stack: Type.Optional(Text(100_000)) }, strict);
const ExchangeInput = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }), request: RequestInput, response: Type.Optional(OrNull(ResponseInput)), error: Type.Optional(OrNull(ErrorInput)) },
  strict,
);
const Exchanges = (maxItems: number) => OrNull(Type.Array(ExchangeInput, { maxItems }));
const Pushed = Type.Union([ExchangeInput, Type.Array(ExchangeInput, { minItems: 1, maxItems: 100 })]);

const writeFields = {
  _id: Type.Optional(Text(64)),
  clientID: Type.Optional(OrNull(Id)),
  clientIP: Type.Optional(Text(64)),
  response: Type.Optional(OrNull(ResponseInput)),
  routes: Type.Optional(Exchanges(100)),
  orchestrations: Type.Optional(Exchanges(1000)),
  properties: Type.Optional(OrNull(Properties)),
  error: Type.Optional(OrNull(ErrorInput)),
  canRerun: Type.Optional(Type.Boolean()),
  wasRerun: Type.Optional(Type.Boolean()),
  autoRetry: Type.Optional(Type.Boolean()),
  // What Junction answers beside a transaction's fields (issue 36), accepted so that a fetched document can be sent back
  // as it came, and ignored: the reason is decided again from what the write says, the names are the channel's and
  // the client's own.
  reason: Type.Optional(Text(1000)),
  channelName: Type.Optional(Text(1000)),
  clientName: Type.Optional(Text(1000)),
};
const Attempt = Type.Integer({ minimum: 0, maximum: 1_000_000 });
const Status = Type.Enum([...TRANSACTION_STATUSES]);

/** `POST /transactions`: a whole transaction; its channel must exist. */
export const TransactionCreateBody = Type.Object(
  { ...writeFields, channelID: Id, status: Status, request: TransactionRequestInput, autoRetryAttempt: Type.Optional(Attempt) },
  strict,
);
export type TransactionCreateBody = Static<typeof TransactionCreateBody>;

/** `PUT /transactions/:id`: the fields to replace and OpenHIM's `$push`; the bookkeeping fields of a fetched document are ignored. */
export const TransactionUpdateBody = Type.Object(
  {
    ...writeFields,
    channelID: Type.Optional(Id),
    status: Type.Optional(Status),
    request: Type.Optional(RequestInput),
    autoRetryAttempt: Type.Optional(OrNull(Attempt)),
    parentID: Type.Optional(Text(64)),
    childIDs: Type.Optional(OrNull(Type.Array(Id, { maxItems: 10_000 }))),
    $push: Type.Optional(Type.Object({ routes: Type.Optional(Pushed), orchestrations: Type.Optional(Pushed) }, { ...strict, minProperties: 1 })),
  },
  { ...strict, minProperties: 1 },
);
export type TransactionUpdateBody = Static<typeof TransactionUpdateBody>;

/** A key that met a key search (issue 37). */
export const KeyMatchSchema = Type.Object({
  name: Type.String(),
  field: Type.String({ description: 'where in the message, such as PID-3 or Patient.identifier' }),
  value: Type.String(),
  authority: Type.Optional(Type.String()),
});

const ErrorView = Type.Object({ message: Type.String(), stack: Type.Optional(Type.String()) });

/** Present only in the `full`/`fulltruncate` views, and with body permission. */
const bodyFields = {
  body: Type.Optional(Type.String()),
  bodyTruncated: Type.Optional(Type.Boolean({ description: 'the stored body was cut at the size limit, or is longer than the view shows' })),
  bodyRemoved: Type.Optional(Type.Boolean({ description: 'removed by body retention while the transaction stays' })),
};

const requestFields = {
  host: Type.Optional(Type.String()),
  port: Type.Optional(Type.Integer()),
  path: Type.String(),
  querystring: Type.String(),
  method: Type.String(),
  headers: Type.Optional(TextMapAnswer),
  timestamp: Type.String(),
  ...bodyFields,
};

const responseFields = {
  status: Type.Integer(),
  headers: Type.Optional(TextMapAnswer),
  timestamp: Type.String(),
  ...bodyFields,
  bodyNotStored: Type.Optional(Type.Boolean({ description: 'the answer arrived but the store could not keep its body (a full disk); shown in every view' })),
};

const RequestView = Type.Object(requestFields);
const ResponseView = Type.Object(responseFields);
const RouteView = Type.Object({ name: Type.String(), request: RequestView, response: Type.Optional(ResponseView), error: Type.Optional(ErrorView) });

// What a mediator reports is recorded as it sent it, so nothing in an orchestration is dropped from the answer.
const open = { additionalProperties: true };
const OrchestrationView = Type.Object(
  {
    name: Type.String(),
    request: Type.Object(requestFields, open),
    response: Type.Optional(Type.Object(responseFields, open)),
    error: Type.Optional(Type.Object(ErrorView.properties, open)),
  },
  open,
);

/** One transaction as the `simple`, `simpledetails`, `full` and `fulltruncate` representations answer it. */
export const TransactionViewSchema = Type.Object({
  _id: Type.String(),
  channelID: Type.String(),
  clientID: Type.Optional(Type.String()),
  clientIP: Type.String(),
  status: Status,
  request: RequestView,
  response: Type.Optional(ResponseView),
  routes: Type.Optional(Type.Array(RouteView)),
  orchestrations: Type.Optional(Type.Array(OrchestrationView)),
  properties: Type.Optional(TextMapAnswer),
  error: Type.Optional(ErrorView),
  reason: Type.Optional(Type.String({ description: 'why it did not succeed, in one line (decided when it completed)' })),
  channelName: Type.Optional(Type.String()),
  clientName: Type.Optional(Type.String()),
  canRerun: Type.Boolean(),
  wasRerun: Type.Optional(Type.Boolean()),
  parentID: Type.Optional(Type.String()),
  childIDs: Type.Optional(Type.Array(Type.String())),
  autoRetry: Type.Boolean(),
  autoRetryAttempt: Type.Integer(),
  match: Type.Optional(Type.Array(KeyMatchSchema, { description: 'in a list searched by a key: the keys that matched' })),
});

/** One transaction in the `bulkrerun` representation. */
export const TransactionRerunViewSchema = Type.Object({
  _id: Type.String(),
  channelID: Type.String(),
  canRerun: Type.Boolean(),
  childIDs: Type.Optional(Type.Array(Type.String())),
});

export const TransactionCountSchema = Type.Object({
  count: Type.Integer({ description: 'how many transactions match' }),
  estimated: Type.Optional(Type.Boolean({ description: 'true when a text search matched more than count and counting stopped there' })),
  transactions: Type.Array(TransactionRerunViewSchema, { description: 'the page of them (filterLimit, filterPage), as a re-run needs them' }),
});

/** `GET /transactions`: a page of transactions, or with `filterRepresentation=bulkrerun` how many match. */
export const TransactionListAnswer = EitherAnswer({ type: 'array' }, Type.Array(TransactionViewSchema), TransactionCountSchema);

/** `GET/PUT /transactions/:id`: the transaction, or with `filterRepresentation=bulkrerun` what a re-run needs. */
export const TransactionAnswer = EitherAnswer({ type: 'object', required: ['request'] }, TransactionViewSchema, TransactionRerunViewSchema);

/** `GET /transactions/search-index` (admins): the search index and its backfill (issue 37). */
export const SearchIndexStatusSchema = Type.Object({
  enabled: Type.Boolean(),
  pending: Type.Integer({ description: 'finished transactions not yet indexed' }),
  backfill: Type.Object({
    done: Type.Boolean(),
    covered: Type.Integer(),
    total: Type.Integer(),
    percent: Type.Integer({ minimum: 0, maximum: 100 }),
  }),
  transactions: Type.Integer({ description: 'transactions with entries in the index' }),
  keys: Type.Integer(),
  bytes: OrNull(Type.Integer()),
  lastError: Type.Optional(Type.String()),
  lastRunAt: Type.Optional(Type.String()),
});
