/**
 * Channels as the management API shows them (`GET /channels`, `GET /channels/:id`) and as it accepts them
 * (`POST /channels`, `PUT /channels/:id`): OpenHIM's field names. The schemas in api/schemas/channels.ts check the
 * same shapes (test/types/ keeps the two equal); stored channels are these with Dates. Import with `import type`,
 * but for the kind lists.
 */
import type { MessageAnswer } from './api.js';

/**
 * The channel and route kinds, declared once: the types below and the API's TypeBox enums are read from these lists,
 * and each kind's behaviour is a row of a table keyed by them (domain/channels/channel-kinds.ts, routing/senders.ts).
 */
export const CHANNEL_TYPES = ['http', 'tcp', 'tls', 'polling'] as const;
export const ROUTE_TYPES = ['http', 'tcp', 'mllp'] as const;
/** Route types a body may name: OpenHIM's `kafka` is refused with a clear 400 until Junction supports Kafka. */
export const ROUTE_INPUT_TYPES = [...ROUTE_TYPES, 'kafka'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];
export type RouteType = (typeof ROUTE_TYPES)[number];
export type RouteInputType = (typeof ROUTE_INPUT_TYPES)[number];
export type ChannelStatus = 'enabled' | 'disabled' | 'deleted';
/**
 * How a tcp or tls channel finds the messages in a connection: `mllp` frames (0x0B … 0x1C 0x0D, several per
 * connection), `stream` (one message per connection, read until the sender half-closes), or `auto`: MLLP when a
 * connection's first byte is 0x0B, stream otherwise.
 */
export type TcpFraming = 'auto' | 'mllp' | 'stream';
/** Where a tcp or tls channel's listener is: bound and serving, being bound, failed to bind (see `error`), or not running. */
export type ListenerState = 'starting' | 'listening' | 'failed' | 'stopped';

/** The listener of a tcp or tls channel, as the channel answers show it (read-only; computed, not stored). */
export interface ChannelListener {
  state: ListenerState;
  host: string;
  port: number;
  /** Why the port could not be bound (in use, not permitted), when `state` is `failed`. */
  error?: string;
  /** When it reached this state (ISO 8601). */
  since: string;
}
/** `refusals`: requests or messages refused on the channel (issue 35), counted per minute from the refusal log. */
export type AlertCondition = 'status' | 'auto-retry-max-attempted' | 'refusals';
export type AlertMethod = 'email' | 'sms';
export type AlertMaxFrequency = 'no max' | '1 per hour' | '1 per day';

/** What answers show instead of a route password; sending it back keeps the stored one. */
export type RoutePasswordMask = '********';

export interface ChannelRoute {
  name: string;
  type: RouteType;
  host: string;
  port: number;
  /** Replaces the request path; cannot be combined with pathTransform. */
  path?: string;
  /** sed-like `s/from/to` or `s/from/to/g`. */
  pathTransform?: string;
  primary: boolean;
  /** HTTPS, or TLS for tcp and mllp routes. */
  secured: boolean;
  username?: string;
  /** Always the mask (RoutePasswordMask) in answers when a password is stored. */
  password?: string;
  forwardAuthHeader: boolean;
  status: 'enabled' | 'disabled';
  /** A secondary route that waits for the primary's answer and is sent only when its status passes statusCodesCheck. */
  waitPrimaryResponse: boolean;
  /** Comma-separated status codes (`201`) and ranges (`2**`) of the primary's answer that let a waiting route be sent; unset means any answer. */
  statusCodesCheck?: string;
  /** Kept for OpenHIM's Kafka routes, which Junction does not send yet. */
  kafkaClientId?: string;
  kafkaTopic?: string;
}

export interface AlertRecipient {
  /** The user's email. */
  user: string;
  method: AlertMethod;
  maxAlerts: AlertMaxFrequency;
}

export interface ChannelAlert {
  condition: AlertCondition;
  /** A code such as `401`, or a range such as `4xx`. */
  status?: string;
  /** Percent; the alert fires only while the failure rate is above it. */
  failureRate?: number;
  groups: string[];
  users: AlertRecipient[];
}

export interface RewriteRule {
  fromHost: string;
  fromPort: number;
  toHost: string;
  toPort: number;
  pathTransform?: string;
}

/** A channel as answered. */
export interface Channel {
  _id: string;
  name: string;
  description?: string;
  type: ChannelType;
  /** Regular expression matched against the request path (http channels). */
  urlPattern: string;
  /** Empty means every method. */
  methods: string[];
  /** 1 is the highest; unset ranks last. */
  priority?: number;
  status: ChannelStatus;
  authType: 'private' | 'public';
  /** Client ids and roles allowed to use a private channel. */
  allow: string[];
  /** Addresses allowed without client authentication (OpenHIM's `whitelist`). */
  whitelist: string[];
  matchContentTypes: string[];
  matchContentRegex?: string;
  matchContentXpath?: string;
  matchContentJson?: string;
  matchContentValue?: string;
  tcpHost?: string;
  tcpPort?: number;
  /** tcp and tls channels: how messages are framed; `auto` (the default) when unset. */
  tcpFraming?: TcpFraming;
  /** tls channels: refuse a connection that presents no client certificate the service trusts. Unset means false. */
  requireClientCertificate?: boolean;
  /** Cron (5 or 6 fields) or `<n> seconds|minutes|hours|days`. */
  pollingSchedule?: string;
  requestBody: boolean;
  responseBody: boolean;
  autoRetryEnabled: boolean;
  autoRetryPeriodMinutes: number;
  /** 0 means unlimited, as in OpenHIM. */
  autoRetryMaxAttempts?: number;
  rewriteUrls: boolean;
  addAutoRewriteRules: boolean;
  rewriteUrlsConfig: RewriteRule[];
  txViewAcl: string[];
  txViewFullAcl: string[];
  txRerunAcl: string[];
  alerts: ChannelAlert[];
  /** Each item one key and its value, as OpenHIM. */
  properties: Record<string, string>[];
  /** Milliseconds to wait for the routes. */
  timeout?: number;
  /** Stored bodies older than this many days are removed. */
  maxBodyAgeDays?: number;
  routes: ChannelRoute[];
  updatedBy?: { id: string; name: string };
  createdAt: string;
  updatedAt: string;
  /** tcp and tls channels that are not deleted: the listener's state, computed when answered. */
  listener?: ChannelListener;
  /** A private channel nobody may use (no client, role or address it admits): why, computed when answered (issue 35). */
  admitsNobody?: string;
}

/** Settings a PUT may remove by sending null. */
export type ClearableChannelField =
  | 'description'
  | 'priority'
  | 'matchContentRegex'
  | 'matchContentXpath'
  | 'matchContentJson'
  | 'matchContentValue'
  | 'tcpHost'
  | 'tcpPort'
  | 'tcpFraming'
  | 'requireClientCertificate'
  | 'pollingSchedule'
  | 'autoRetryMaxAttempts'
  | 'timeout'
  | 'maxBodyAgeDays';

type Writable = Omit<Channel, '_id' | 'createdAt' | 'updatedAt' | 'updatedBy' | 'status' | 'routes' | 'alerts' | 'listener' | 'admitsNobody'> & {
  status: 'enabled' | 'disabled';
  routes: ChannelRouteInput[];
  alerts: ChannelAlertInput[];
};

/** Optional text of a route a body may send as null (not set), as OpenHIM documents carry it. */
type NullableRouteText = 'path' | 'pathTransform' | 'username' | 'password' | 'statusCodesCheck' | 'kafkaClientId' | 'kafkaTopic';

/**
 * A route as sent: name, host and port, the rest defaulted by the service; empty or null optional text is "not set".
 * `_id` (OpenHIM's sub-document id) and `kafkaBrokers` (OpenHIM's console sends it empty) are accepted and ignored.
 */
export type ChannelRouteInput = Pick<ChannelRoute, 'name' | 'host' | 'port'> &
  Partial<Omit<ChannelRoute, 'name' | 'host' | 'port' | 'type' | NullableRouteText>> & { [K in NullableRouteText]?: string | null } & {
    type?: RouteInputType;
    _id?: string;
    kafkaBrokers?: string | null;
  };
export type ChannelAlertInput = Partial<ChannelAlert> & { _id?: string };

/** Fields of an answer (and of OpenHIM's documents) that a body may carry back: accepted and ignored. */
export interface ReadOnlyChannelFields {
  _id?: string;
  createdAt?: string;
  updatedAt?: string;
  updatedBy?: { id?: string; name: string };
  __v?: number;
  lastBodyCleared?: string;
  /** The computed listener state of an answer: checked, then ignored. */
  listener?: Partial<ChannelListener>;
  /** The computed access warning of an answer: ignored. */
  admitsNobody?: string;
}

/** Junction's earlier name for `whitelist`, still accepted on input (scripts written against Junction's API). */
export interface LegacyChannelInput {
  whitelistedIPs?: string[];
}

/** The body of `POST /channels`; null or an empty text means "not set" (as OpenHIM's console sends unused fields). */
export type ChannelCreate = Pick<Writable, 'name' | 'routes'> &
  Partial<Omit<Writable, 'name' | 'routes' | ClearableChannelField>> & { [K in ClearableChannelField]?: Writable[K] | null } & ReadOnlyChannelFields &
  LegacyChannelInput;

/**
 * The body of `PUT /channels/:id`: any subset; null (or an empty text) removes a clearable setting; a given `routes`
 * replaces them all. The read-only fields of an answer, `_id` included, are accepted and ignored, so a channel fetched
 * with GET can be sent back; an `_id` never retargets the update.
 */
export type ChannelUpdate = Partial<Omit<Writable, ClearableChannelField>> & { [K in ClearableChannelField]?: Writable[K] | null } & ReadOnlyChannelFields & LegacyChannelInput;

/** One operation of a history record (RFC 6902 JSON Patch, as OpenHIM's patch history records it). */
export interface ChannelPatchOp {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

/** One change of a channel as `GET /channels/:id/audits` answers it (OpenHIM's patch-history shape), newest first. */
export interface ChannelAudit {
  _id: string;
  /** The channel's id. */
  ref: string;
  ops: ChannelPatchOp[];
  date: string;
  updatedBy: { id?: string; name: string };
}

/** The answer of `POST /channels/:id/trigger`. */
export interface ChannelTriggerAnswer {
  message: string;
  transactionId: string;
  /** True when the previous poll was still running and was joined instead. */
  alreadyRunning: boolean;
}

/** The answer of `DELETE /channels/:id`. */
export type ChannelDeleteAnswer = MessageAnswer;

/**
 * A channel's listener as the channel list says it (issue 36): bound and serving, being bound, not bound (with the
 * reason: the port is taken, not permitted), not listening because the channel is disabled or deleted, or none at
 * all because requests reach the channel on the transaction ports (http) or Junction polls (polling).
 */
export type ListenerCondition = 'listening' | 'starting' | 'not-bound' | 'off' | 'none';

/** One row of `GET /channels/status`: is the channel working, today, and where a sender sends to it. */
export interface ChannelStatusRow {
  _id: string;
  name: string;
  type: ChannelType;
  status: ChannelStatus;
  /** Counts since the start of today in the metrics time zone (`ChannelStatusAnswer.since`), from the metric buckets and the refusal log. */
  today: {
    received: number;
    /** Transactions that ended Failed. */
    failed: number;
    /** Requests or messages refused before they became transactions (the Refused page). */
    refused: number;
  };
  /** When the channel's newest transaction arrived (ISO 8601); null when it has none. */
  lastMessageAt: string | null;
  listener: {
    condition: ListenerCondition;
    /** Why it is not bound (`not-bound`) or not listening (`off`), in words. */
    reason?: string;
    port?: number;
  };
  /**
   * Where a sender sends to it, the preferred first: `https://host:5000/fhir…` and `http://host:5001/fhir…` for http
   * channels (`…`: any path that starts so), `mllp://host:2575`, `tcp://host:2575` or `tls://host:2575` for tcp and tls
   * channels. Empty for polling channels, which nobody sends to.
   */
  addresses: string[];
}

/** The answer of `GET /channels/status`. */
export interface ChannelStatusAnswer {
  /** The start of today (ISO 8601) in `timeZone`, from which `today` counts. */
  since: string;
  timeZone: string;
  channels: ChannelStatusRow[];
}

/** How one route answered "Check routes": reached, or why not, in a word a program can branch on. */
export type RouteCheckOutcome = 'ok' | 'refused' | 'timeout' | 'certificate' | 'tls' | 'dns' | 'unreachable' | 'reset' | 'other';

/** One route's result of `POST /channels/:id/check-routes`. */
export interface RouteCheckResult {
  name: string;
  type: RouteType;
  /** `https://host:443`, `mllp://host:2575 (TLS)`: what was connected to. */
  target: string;
  /** Routes switched off are checked too, and say so. */
  enabled: boolean;
  outcome: RouteCheckOutcome;
  /** The outcome in words, such as `connected and the TLS certificate is trusted` or `connection refused: nothing listens on host:port`. */
  message: string;
  /** Milliseconds the connection (and handshake) took, or until it failed. */
  ms: number;
}

/** The answer of `POST /channels/:id/check-routes`: nothing was sent to any route, only connected to. */
export interface RouteCheckAnswer {
  channel: { _id: string; name: string };
  /** Every route reached. */
  ok: boolean;
  routes: RouteCheckResult[];
}

/** The body of `POST /channels/:id/test-message`: exactly what is sent; nothing is added to the body. */
export interface TestMessageBody {
  /** The request body or message, as written or confirmed by the administrator. */
  body: string;
  /** http channels: the method (POST by default) and path (required; it must match the channel's URL pattern). */
  method?: string;
  path?: string;
  /** http channels: the Content-Type header sent with the body. */
  contentType?: string;
}

/** The answer of `POST /channels/:id/test-message`: the transaction it made, marked with the property `test: "true"`. */
export interface TestMessageAnswer {
  transactionId: string;
  /** The transaction's final status; `Processing` when it had not finished within the channel's timeout. */
  status: string;
  /** The status code the primary route's answer gave the transaction (an ACK's AA 200, AE 400, AR 500). */
  responseStatus?: number;
  /** The transaction's error, when Junction could not complete it. */
  error?: string;
}

/** The transaction property that marks a test message sent from the console (`properties.test`). */
export const TEST_MESSAGE_PROPERTY = 'test';
