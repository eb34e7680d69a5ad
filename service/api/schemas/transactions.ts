/**
 * Request and response schemas of the transactions routes (OpenHIM query names). The `filters` JSON is checked by
 * domain/transaction-access.ts. The answers are the contracts' (contracts/transactions.ts; test/types/ keeps them
 * equal): what permissions shape, so the serializer's dropping of unlisted fields is a second guard.
 */
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { TRANSACTION_STATUSES } from '../../domain/transaction-status.js';
import { EitherAnswer, Paging, TextMapAnswer } from './common.js';

const Filters = Type.String({ maxLength: 10_000, description: 'a JSON object of OpenHIM transaction filters' });
const Id = Type.String({ minLength: 1, maxLength: 64 });

export const Representation = Type.Enum(['simple', 'simpledetails', 'full', 'fulltruncate', 'bulkrerun'], {
  description: 'how much of each transaction to return; the default leaves out bodies, headers, routes and orchestrations',
});
export type Representation = Static<typeof Representation>;

export const TransactionListQuery = Type.Object(
  {
    ...Paging,
    filterRepresentation: Type.Optional(Representation),
    filters: Type.Optional(Filters),
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
  },
  { additionalProperties: false },
);
export type ExportQuery = Static<typeof ExportQuery>;

// NeDB cannot store field names with a dot or a leading $, so property keys exclude them.
const Properties = Type.Record(Type.String({ pattern: '^[^.$][^.]{0,99}$' }), Type.String({ maxLength: 2000 }), {
  additionalProperties: false,
  maxProperties: 100,
});

export const TransactionUpdateBody = Type.Object(
  {
    properties: Type.Optional(Properties),
    status: Type.Optional(Type.Enum([...TRANSACTION_STATUSES])),
    wasRerun: Type.Optional(Type.Boolean()),
    autoRetry: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type TransactionUpdateBody = Static<typeof TransactionUpdateBody>;

const Status = Type.Enum([...TRANSACTION_STATUSES]);
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
  canRerun: Type.Boolean(),
  wasRerun: Type.Optional(Type.Boolean()),
  parentID: Type.Optional(Type.String()),
  childIDs: Type.Optional(Type.Array(Type.String())),
  autoRetry: Type.Boolean(),
  autoRetryAttempt: Type.Integer(),
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
  transactions: Type.Array(TransactionRerunViewSchema, { description: 'the page of them (filterLimit, filterPage), as a re-run needs them' }),
});

/** `GET /transactions`: a page of transactions, or with `filterRepresentation=bulkrerun` how many match. */
export const TransactionListAnswer = EitherAnswer({ type: 'array' }, Type.Array(TransactionViewSchema), TransactionCountSchema);

/** `GET/PUT /transactions/:id`: the transaction, or with `filterRepresentation=bulkrerun` what a re-run needs. */
export const TransactionAnswer = EitherAnswer({ required: ['request'] }, TransactionViewSchema, TransactionRerunViewSchema);
