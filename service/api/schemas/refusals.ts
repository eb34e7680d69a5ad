/** Request and response schemas of `GET /refusals` (issue 35). */
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { REFUSAL_KINDS } from '../../contracts/refusals.js';
import { MAX_REFUSAL_PAGE } from '../../domain/operations/refusals.js';

/** Dates, channel ids and reasons are checked by the route (domain/operations/refusals.ts), each problem named. */
export const RefusalListQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601: rows whose last refusal is at or after this' })),
    to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601: rows whose first refusal is at or before this' })),
    channelID: Type.Optional(Type.String({ maxLength: 2500, description: 'channel ids, comma-separated' })),
    reason: Type.Optional(Type.String({ maxLength: 500, description: `reasons, comma-separated: ${REFUSAL_KINDS.join(', ')}` })),
    address: Type.Optional(Type.String({ maxLength: 100, pattern: '^[0-9A-Za-z.:*_-]*$', description: "the sender's address, exactly (IPv4, IPv6, or * for the senders folded together)" })),
    filterLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_REFUSAL_PAGE, description: 'rows per page, default 50' })),
    filterPage: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'page, counted from 0' })),
  },
  { additionalProperties: false },
);
export type RefusalListQuery = Static<typeof RefusalListQuery>;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const RefusalSchema = Type.Object({
  _id: Type.String(),
  minute: Type.String(),
  firstAt: Type.String(),
  lastAt: Type.String(),
  count: Type.Integer(),
  reason: Type.Enum([...REFUSAL_KINDS]),
  listener: Type.String(),
  port: Nullable(Type.Integer()),
  channelID: Nullable(Type.String()),
  channelName: Nullable(Type.String()),
  address: Type.String(),
  client: Nullable(Type.String()),
  detail: Type.String(),
});

export const RefusalPageAnswer = Type.Object({ items: Type.Array(RefusalSchema), total: Type.Integer({ description: 'rows matching the filters' }), refused: Type.Integer({ description: 'refusals those rows count' }) });
