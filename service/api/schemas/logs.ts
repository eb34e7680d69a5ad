/** Request and response schemas of `GET /logs` and `GET /events/:receivedTime` (OpenHIM's names and shapes). */
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { LOG_ORDERS, MAX_LOG_LIMIT, MAX_LOG_SEARCH } from '../../domain/operations/log-lines.js';

/** `from` and `until` are checked by the route (domain/operations/log-lines.ts), so a bad date is named in the same words as a bad level. */
export const LogsQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 or epoch ms; default: five minutes ago' })),
    until: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 or epoch ms; default: now' })),
    level: Type.Optional(Type.String({ maxLength: 10, description: 'trace, debug, info (default), warn, error or fatal: this level and more severe' })),
    start: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, description: 'lines to skip, default 0' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LOG_LIMIT, description: `most lines answered, default and at most ${MAX_LOG_LIMIT}` })),
    // Junction's own: a caller that passes neither gets OpenHIM's answer.
    order: Type.Optional(Type.String({ maxLength: 10, description: `${LOG_ORDERS.join(' or ')}: oldest (default, as OpenHIM) or newest line first` })),
    search: Type.Optional(Type.String({ maxLength: MAX_LOG_SEARCH, description: 'only lines whose message or details contain this text, in any case' })),
  },
  { additionalProperties: false },
);
export type LogsQuery = Static<typeof LogsQuery>;

export const LogEntrySchema = Type.Object({
  message: Type.String(),
  timestamp: Type.String(),
  level: Type.String(),
  // Free-form: whatever the line carried, written whole.
  meta: Type.Unsafe<Record<string, unknown>>({ description: 'the rest of the line' }),
  label: Type.String(),
});
export const LogsAnswer = Type.Array(LogEntrySchema);

export const EventsParams = Type.Object(
  { receivedTime: Type.String({ pattern: '^[0-9]{1,15}$', description: 'epoch milliseconds' }) },
  { additionalProperties: false },
);

export const VisualizerEventSchema = Type.Object({
  channelID: Type.String(),
  transactionID: Type.String(),
  type: Type.String(),
  event: Type.String(),
  name: Type.String(),
  status: Type.Optional(Type.Integer()),
  statusType: Type.Optional(Type.String()),
  normalizedTimestamp: Type.Number(),
  mediator: Type.Optional(Type.String()),
  autoRetryAttempt: Type.Optional(Type.Integer()),
});
export const EventsAnswer = Type.Object({ events: Type.Array(VisualizerEventSchema) });
