/** Request schemas of the transactions routes (OpenHIM query names). The `filters` JSON is checked by domain/transaction-access.ts. */
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { TRANSACTION_STATUSES } from '../../domain/transaction-status.js';
import { Paging } from './common.js';

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
