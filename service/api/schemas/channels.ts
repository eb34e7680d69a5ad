/**
 * Request and response schemas of the channels routes (OpenHIM field names). The schemas check shapes; the rules
 * that span fields (one primary route, compiling regexes, path transforms) live in domain/channels/channel-rules.ts.
 * Defaults are applied by the routes, not here, so a partial PUT never gains defaults that overwrite stored values.
 */
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { CHANNEL_TYPES, ROUTE_INPUT_TYPES, ROUTE_TYPES } from '../../contracts/channels.js';
import { OrNull } from './common.js';

const Text = Type.String({ maxLength: 2000 });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Group = Type.String({ minLength: 1, maxLength: 100 });
const Groups = Type.Array(Group, { maxItems: 200, uniqueItems: true });
const Port = Type.Integer({ minimum: 1, maximum: 65535 });
// Counts with no natural bound still stay exact integers: beyond that, a stored value is no longer the value sent.
const Count = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Pattern = Type.String({ maxLength: 2000 });
// Letters only; whether it is a known method, and repeats in any case, are told by the channel rules.
const Method = Type.String({ pattern: '^[A-Za-z]{1,16}$', description: 'an HTTP method name such as GET' });
const Address = Type.String({ minLength: 2, maxLength: 45, description: 'an IPv4 or IPv6 address' });
const Addresses = Type.Array(Address, { maxItems: 1000, uniqueItems: true });
const Status = Type.Enum(['enabled', 'disabled'], { description: '"deleted" is set by the service only' });
const RouteType = Type.Enum([...ROUTE_TYPES]);
// Accepted so OpenHIM's Kafka routes get a clear refusal from the channel rules rather than a bare enum error.
const RouteInputType = Type.Enum([...ROUTE_INPUT_TYPES]);
// OpenHIM's sub-document ids, carried by its documents and ignored here.
const SubId = Type.String({ maxLength: 100 });
const AlertCondition = Type.Enum(['status', 'auto-retry-max-attempted', 'refusals']);
// NeDB cannot store field names with a dot or a leading $, so property keys exclude them.
const Property = Type.Record(Type.String({ pattern: '^[^.$][^.]{0,99}$' }), Type.String({ maxLength: 2000 }), {
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
  description: 'one key and its string value, as OpenHIM',
});

export const RouteBody = Type.Object(
  {
    name: Name,
    type: Type.Optional(RouteInputType),
    host: Type.String({ minLength: 1, maxLength: 253 }),
    port: Port,
    path: Type.Optional(OrNull(Text)),
    pathTransform: Type.Optional(OrNull(Text)),
    primary: Type.Optional(Type.Boolean()),
    secured: Type.Optional(Type.Boolean()),
    username: Type.Optional(OrNull(Type.String({ maxLength: 200 }))),
    password: Type.Optional(OrNull(Type.String({ maxLength: 1000 }))),
    forwardAuthHeader: Type.Optional(Type.Boolean()),
    status: Type.Optional(Status),
    waitPrimaryResponse: Type.Optional(Type.Boolean()),
    statusCodesCheck: Type.Optional(OrNull(Type.String({ maxLength: 500, description: 'codes such as 201 and ranges such as 2**, comma-separated' }))),
    kafkaClientId: Type.Optional(OrNull(Type.String({ maxLength: 200 }))),
    kafkaTopic: Type.Optional(OrNull(Type.String({ maxLength: 255 }))),
    kafkaBrokers: Type.Optional(OrNull(Type.String({ maxLength: 2000, description: 'accepted and ignored (OpenHIM console sends it empty)' }))),
    _id: Type.Optional(SubId),
  },
  { additionalProperties: false },
);
export type RouteBody = Static<typeof RouteBody>;

const AlertUser = Type.Object(
  {
    user: Type.String({ minLength: 1, maxLength: 254 }),
    method: Type.Enum(['email', 'sms']),
    maxAlerts: Type.Enum(['no max', '1 per hour', '1 per day']),
  },
  { additionalProperties: false },
);

export const AlertBody = Type.Object(
  {
    condition: Type.Optional(AlertCondition),
    status: Type.Optional(Type.String({ pattern: '^[1-5]([0-9]{2}|[0-9]x|xx)$', description: 'a code such as 401 or a range such as 4xx' })),
    failureRate: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    groups: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })),
    users: Type.Optional(Type.Array(AlertUser, { maxItems: 100 })),
    _id: Type.Optional(SubId),
  },
  { additionalProperties: false },
);
export type AlertBody = Static<typeof AlertBody>;

const RewriteRule = Type.Object(
  {
    fromHost: Type.String({ minLength: 1, maxLength: 253 }),
    toHost: Type.String({ minLength: 1, maxLength: 253 }),
    fromPort: Port,
    toPort: Port,
    pathTransform: Type.Optional(Text),
  },
  { additionalProperties: false },
);

// Fields that may be removed by a PUT; ranges are repeated in the channel rules for callers that skip HTTP. Their
// texts may be empty: OpenHIM's console sends '' for an unused one, which means "not set" (domain/channels/channel-body.ts).
const clearable = {
  description: Text,
  priority: Count,
  matchContentRegex: Pattern,
  matchContentXpath: Pattern,
  matchContentJson: Pattern,
  matchContentValue: Text,
  tcpHost: Type.String({ maxLength: 253 }),
  tcpPort: Port,
  tcpFraming: Type.Enum(['auto', 'mllp', 'stream'], { description: 'tcp and tls channels: mllp frames, one message per connection (stream), or auto (MLLP when the first byte is 0x0B)' }),
  requireClientCertificate: Type.Boolean({ description: 'tls channels: refuse connections without a trusted client certificate' }),
  pollingSchedule: Type.String({ maxLength: 200 }),
  autoRetryMaxAttempts: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: '0 means unlimited' }),
  timeout: Type.Integer({ minimum: 1, maximum: 3_600_000, description: 'milliseconds' }),
  maxBodyAgeDays: Type.Integer({ minimum: 1, maximum: 36_500 }),
};

const settings = {
  type: Type.Enum([...CHANNEL_TYPES]),
  // Empty is allowed because tcp and tls channels have none; the rules require one for http and polling.
  urlPattern: Text,
  methods: Type.Array(Method, { maxItems: 20, uniqueItems: true }),
  status: Status,
  authType: Type.Enum(['private', 'public']),
  allow: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 1000, uniqueItems: true }),
  whitelist: Addresses,
  matchContentTypes: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 50, uniqueItems: true }),
  requestBody: Type.Boolean(),
  responseBody: Type.Boolean(),
  autoRetryEnabled: Type.Boolean(),
  autoRetryPeriodMinutes: Count,
  rewriteUrls: Type.Boolean(),
  addAutoRewriteRules: Type.Boolean(),
  rewriteUrlsConfig: Type.Array(RewriteRule, { maxItems: 100 }),
  txViewAcl: Groups,
  txViewFullAcl: Groups,
  txRerunAcl: Groups,
  alerts: Type.Array(AlertBody, { maxItems: 100 }),
  properties: Type.Array(Property, { maxItems: 100 }),
};

const Routes = Type.Array(RouteBody, { maxItems: 50 });

const nullableClearable = {
  description: OrNull(clearable.description),
  priority: OrNull(clearable.priority),
  matchContentRegex: OrNull(clearable.matchContentRegex),
  matchContentXpath: OrNull(clearable.matchContentXpath),
  matchContentJson: OrNull(clearable.matchContentJson),
  matchContentValue: OrNull(clearable.matchContentValue),
  tcpHost: OrNull(clearable.tcpHost),
  tcpPort: OrNull(clearable.tcpPort),
  tcpFraming: OrNull(clearable.tcpFraming),
  requireClientCertificate: OrNull(clearable.requireClientCertificate),
  pollingSchedule: OrNull(clearable.pollingSchedule),
  autoRetryMaxAttempts: OrNull(clearable.autoRetryMaxAttempts),
  timeout: OrNull(clearable.timeout),
  maxBodyAgeDays: OrNull(clearable.maxBodyAgeDays),
};

/**
 * Read-only fields of an answer (and of OpenHIM's documents: `__v`, `lastBodyCleared`): accepted and ignored, so a
 * channel fetched with GET can be sent back with PUT, or duplicated with POST as OpenHIM's console does.
 */
const readOnly = {
  _id: Type.String({ maxLength: 100 }),
  createdAt: Type.String({ maxLength: 100 }),
  updatedAt: Type.String({ maxLength: 100 }),
  updatedBy: Type.Object({ id: Type.Optional(Type.String({ maxLength: 100 })), name: Type.String({ maxLength: 300 }) }),
  __v: Type.Integer({ minimum: 0 }),
  lastBodyCleared: Type.String({ maxLength: 100 }),
  listener: Type.Object(
    {
      state: Type.Optional(Type.Enum(['starting', 'listening', 'failed', 'stopped'])),
      host: Type.Optional(Type.String({ maxLength: 253 })),
      port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
      error: Type.Optional(Type.String({ maxLength: 2000 })),
      since: Type.Optional(Type.String({ maxLength: 100 })),
    },
    { additionalProperties: false, description: 'computed by the service; ignored' },
  ),
  admitsNobody: Type.String({ maxLength: 2000, description: 'computed by the service; ignored' }),
};

// Junction's earlier name for `whitelist`: accepted on input so scripts written against Junction's API keep working.
const legacy = { whitelistedIPs: Addresses };

/** A POST body: name and routes required; null or an empty text means "not set". */
export const ChannelCreateBody = Type.Object(
  { name: Name, routes: Routes, ...Type.Partial(Type.Object({ ...nullableClearable, ...settings, ...readOnly, ...legacy })).properties },
  { additionalProperties: false },
);
export type ChannelCreateBody = Static<typeof ChannelCreateBody>;

/** A PUT body: any subset of the fields; null removes a clearable field; a given `routes` replaces them all. */
export const ChannelUpdateBody = Type.Object(
  Type.Partial(Type.Object({ name: Name, routes: Routes, ...settings, ...nullableClearable, ...readOnly, ...legacy })).properties,
  { additionalProperties: false, minProperties: 1 },
);
export type ChannelUpdateBody = Static<typeof ChannelUpdateBody>;

/** `GET /channels?includeDeleted=true` also lists channels kept as `deleted` because transactions refer to them. */
export const ChannelListQuery = Type.Object(
  { includeDeleted: Type.Optional(Type.Boolean({ description: 'also list channels marked deleted' })) },
  { additionalProperties: false },
);

export const ChannelParams = Type.Object({ channelId: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });

const PublicRoute = Type.Object({
  name: Type.String(),
  type: RouteType,
  host: Type.String(),
  port: Type.Integer(),
  path: Type.Optional(Type.String()),
  pathTransform: Type.Optional(Type.String()),
  primary: Type.Boolean(),
  secured: Type.Boolean(),
  username: Type.Optional(Type.String()),
  password: Type.Optional(Type.String({ description: 'always the mask when a password is set' })),
  forwardAuthHeader: Type.Boolean(),
  status: Status,
  waitPrimaryResponse: Type.Boolean(),
  statusCodesCheck: Type.Optional(Type.String()),
  kafkaClientId: Type.Optional(Type.String()),
  kafkaTopic: Type.Optional(Type.String()),
});

const PublicAlert = Type.Object({
  condition: AlertCondition,
  status: Type.Optional(Type.String()),
  failureRate: Type.Optional(Type.Number()),
  groups: Type.Array(Type.String()),
  users: Type.Array(AlertUser),
});

/** A channel as answered (contracts/channels.ts `Channel`); the serializer drops anything not listed. */
export const PublicChannelSchema = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  ...Type.Partial(Type.Object(clearable)).properties,
  ...settings,
  status: Type.Enum(['enabled', 'disabled', 'deleted']),
  routes: Type.Array(PublicRoute),
  alerts: Type.Array(PublicAlert),
  updatedBy: Type.Optional(Type.Object({ id: Type.String(), name: Type.String() })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  listener: Type.Optional(
    Type.Object({
      state: Type.Enum(['starting', 'listening', 'failed', 'stopped']),
      host: Type.String(),
      port: Type.Integer(),
      error: Type.Optional(Type.String()),
      since: Type.String(),
    }),
  ),
  admitsNobody: Type.Optional(Type.String({ description: 'a private channel nobody may use: why (no client, role or address it admits)' })),
});

/** One change of a channel (contracts/channels.ts `ChannelAudit`), as OpenHIM's patch history answers it. */
export const ChannelAuditSchema = Type.Object({
  _id: Type.String(),
  ref: Type.String(),
  ops: Type.Array(
    Type.Object({
      op: Type.Enum(['add', 'remove', 'replace']),
      path: Type.String(),
      // Any JSON value: written whole by JSON.stringify, as the free-form answers are.
      value: Type.Optional(Type.Unsafe<unknown>({ description: 'the value added or put in place' })),
    }),
  ),
  date: Type.String(),
  updatedBy: Type.Object({ id: Type.Optional(Type.String()), name: Type.String() }),
});

// ---- Is it working? (issue 36): the channel list's status, Check routes, Send test message ----

const ChannelStatusRowSchema = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  type: Type.Enum([...CHANNEL_TYPES]),
  status: Type.Enum(['enabled', 'disabled', 'deleted']),
  today: Type.Object({ received: Type.Integer(), failed: Type.Integer(), refused: Type.Integer() }),
  lastMessageAt: OrNull(Type.String()),
  listener: Type.Object({
    condition: Type.Enum(['listening', 'starting', 'not-bound', 'off', 'none']),
    reason: Type.Optional(Type.String()),
    port: Type.Optional(Type.Integer()),
  }),
  addresses: Type.Array(Type.String()),
});

/** `GET /channels/status` (contracts/channels.ts `ChannelStatusAnswer`). */
export const ChannelStatusAnswerSchema = Type.Object({
  since: Type.String(),
  timeZone: Type.String(),
  channels: Type.Array(ChannelStatusRowSchema),
});

/** `POST /channels/:channelId/check-routes` (contracts/channels.ts `RouteCheckAnswer`). */
export const RouteCheckAnswerSchema = Type.Object({
  channel: Type.Object({ _id: Type.String(), name: Type.String() }),
  ok: Type.Boolean(),
  routes: Type.Array(
    Type.Object({
      name: Type.String(),
      type: RouteType,
      target: Type.String(),
      enabled: Type.Boolean(),
      outcome: Type.Enum(['ok', 'refused', 'timeout', 'certificate', 'tls', 'dns', 'unreachable', 'reset', 'other']),
      message: Type.String(),
      ms: Type.Integer(),
    }),
  ),
});

/** The body of `POST /channels/:channelId/test-message` (contracts/channels.ts `TestMessageBody`). */
export const TestMessageBodySchema = Type.Object(
  {
    body: Type.String({ maxLength: 1_000_000, description: 'the request body or message, sent exactly as given' }),
    method: Type.Optional(Method),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'http channels: the path (and query) to send to' })),
    contentType: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

/** `POST /channels/:channelId/test-message` (contracts/channels.ts `TestMessageAnswer`). */
export const TestMessageAnswerSchema = Type.Object({
  transactionId: Type.String(),
  status: Type.String(),
  responseStatus: Type.Optional(Type.Integer()),
  error: Type.Optional(Type.String()),
});
