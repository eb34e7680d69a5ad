/**
 * Transactions as the management API answers them (`GET /transactions`, `GET /transactions/:id`), their list filters,
 * and the answers of the re-run routes (`POST /tasks`, `POST /bulkrerun`). Dates are ISO 8601 text. Import with
 * `import type`.
 */

import type { TransactionStatus } from './vocabulary.js';
import type { TaskView } from './tasks.js';

// The status names are one list (vocabulary.ts) that the rules check against too, so the wire and the rules cannot drift.
export type { TransactionStatus };

/** Body fields of a request or response; present only in the `full`/`fulltruncate` views and with body permission. */
export interface BodyFields {
  body?: string;
  /** The stored body was cut at the size limit, or is longer than the view shows. */
  bodyTruncated?: boolean;
  /** The body was deleted by body retention (the channel's maxBodyAgeDays) while the transaction stays. */
  bodyRemoved?: boolean;
}

/** What a request was, as stored and as answered. */
export interface RequestLine {
  host?: string;
  port?: number;
  path: string;
  querystring: string;
  method: string;
}

export interface TransactionRequestView extends RequestLine, BodyFields {
  /** Only in the detailed views (`simpledetails`, `full`, `fulltruncate`). */
  headers?: Record<string, string>;
  timestamp: string;
}

export interface TransactionResponseView extends BodyFields {
  status: number;
  /** The answer arrived but the store could not keep its body (a full disk); shown in every view. */
  bodyNotStored?: boolean;
  headers?: Record<string, string>;
  timestamp: string;
}

/** One route's or one mediator orchestration's exchange. */
export interface ExchangeView {
  name: string;
  request: TransactionRequestView;
  response?: TransactionResponseView;
  error?: { message: string; stack?: string };
}

/** The fields a transaction has as stored and as answered alike (the log adds body references and bookkeeping). */
export interface TransactionFields {
  _id: string;
  channelID: string;
  /** The client's `_id`; absent for public channels and whitelisted callers. */
  clientID?: string;
  clientIP: string;
  status: TransactionStatus;
  properties?: Record<string, string>;
  error?: { message: string; stack?: string };
  /**
   * Why it did not succeed, in one line of at most 200 characters (issue 36): its error, an HL7 ACK's code and text,
   * or the upstream's status and the start of its error body. Decided when it completed (never read from bodies by a
   * list); answered for older transactions from their error and status.
   */
  reason?: string;
  /** False when a body needed to re-run it was not stored or was truncated. */
  canRerun: boolean;
  wasRerun?: boolean;
  parentID?: string;
  childIDs?: string[];
  /** Queued for the auto-retry scheduler (connection errors and mediator errors on channels with retry on). */
  autoRetry: boolean;
  autoRetryAttempt: number;
}

export interface TransactionView extends TransactionFields {
  /** The channel's and the client's names, as the caller may see them with the transaction (issue 36). */
  channelName?: string;
  clientName?: string;
  request: TransactionRequestView;
  response?: TransactionResponseView;
  /** Only in the detailed views. */
  routes?: ExchangeView[];
  orchestrations?: ExchangeView[];
  /** In a list searched by a key (`patientId`, `orderNumber`, `controlId`, `messageType`, `q`): the keys that matched. */
  match?: TransactionKeyMatch[];
}

/** A clinical key of a transaction that met a key search (issue 37): what it is, where it was read and its value. */
export interface TransactionKeyMatch {
  /** `patientId`, `orderNumber`, `controlId` or `messageType`. */
  name: string;
  /** Where in the message: `PID-3`, `ORC-2`, `MSH-10`, `Patient.identifier`, ... */
  field: string;
  /** As written in the message. */
  value: string;
  /** Who issued it (PID-3.4, a FHIR identifier's system), when known. */
  authority?: string;
}

/** One transaction in the `bulkrerun` representation (`GET /transactions/:id?filterRepresentation=bulkrerun`). */
export type TransactionRerunView = Pick<TransactionView, '_id' | 'channelID' | 'canRerun' | 'childIDs'>;

/** OpenHIM's `filters` object of the list, count, export and bulk re-run (all optional, combined with AND). */
export interface TransactionFilters {
  status?: TransactionStatus | TransactionStatus[];
  /** A response status code (`404`) or class (`5xx`). */
  'response.status'?: string;
  channelID?: string | string[];
  /** A client's `_id`. */
  clientID?: string;
  'request.method'?: string;
  /** A regular expression matched against the request path. */
  'request.path'?: string;
  /** A regular expression matched against the query string (OpenHIM's console sends `key` or `key=value`). */
  'request.querystring'?: string;
  'request.host'?: string;
  'request.port'?: number | string;
  /** As an object, or (as OpenHIM's console sends it) its JSON text. */
  'request.timestamp'?: { $gte?: string; $lte?: string } | string;
  /** A property's value, or null for "the property is set, whatever its value". */
  properties?: Record<string, string | null>;
  wasRerun?: boolean;
  /** `{"$exists":true,"$ne":[]}` (re-run before) or `{"$eq":[]}` (never re-run), as OpenHIM's console sends it (JSON text). */
  childIDs?: string | { $exists?: true; $ne?: []; $eq?: [] };
  /** Clinical search (issue 37), also accepted as query parameters of the same names: a patient identifier (PID-3, a FHIR Patient identifier). */
  patientId?: string;
  /** Narrows `patientId` to one assigning authority (PID-3.4, a FHIR identifier's system). */
  authority?: string;
  /** A placer or filler order number (ORC-2/3, OBR-2/3, a FHIR ServiceRequest, DiagnosticReport or Specimen identifier). */
  orderNumber?: string;
  /** An HL7 message control id (MSH-10). */
  controlId?: string;
  /** An HL7 message type (MSH-9), `ADT` or `ADT^A01`. */
  messageType?: string;
  /** A patient ID, an order number or a control ID: the console's one search box. */
  q?: string;
  /** Words that must all appear in the request or response body (only bodies the caller may read). */
  text?: string;
}

/** The route and orchestration fields of the `filters` object: a transaction matches when one route (or orchestration) meets them. */
export type ExchangeFilterKey = `${'routes' | 'orchestrations'}.${'response.status' | 'request.host' | 'request.port' | 'request.path' | 'request.querystring'}`;

/** Every key of OpenHIM's `filters` object that Junction understands. */
export type AllTransactionFilters = TransactionFilters & { [K in ExchangeFilterKey]?: string | number };

/** `GET /transactions?filterRepresentation=bulkrerun`: how many transactions match, and (as OpenHIM answers) the page of them. */
export interface TransactionCount {
  count: number;
  /** True when a text search matched more than `count` (10,000) and counting stopped there: "more than 10,000". */
  estimated?: boolean;
  transactions: TransactionRerunView[];
}

/** `GET /transactions/search-index` (admins): the clinical search index and its background backfill (issue 37). */
export interface SearchIndexStatus {
  /** `search.enabled`: when false nothing is indexed and key and text searches are refused (SEARCH_DISABLED). */
  enabled: boolean;
  /** Finished transactions not yet indexed (the live feed's lag). */
  pending: number;
  backfill: {
    /** The walk back over transactions stored before indexing began has reached the oldest. */
    done: boolean;
    /** Transactions it has covered, of `total` (estimated when it began). */
    covered: number;
    total: number;
    /** Whole percent, 100 when done. */
    percent: number;
  };
  /** What the index holds. */
  transactions: number;
  keys: number;
  /** Its size on disk, when the engine can say. */
  bytes: number | null;
  /** This instance's indexer's last failure, in words (no keys or bodies), until a run succeeds. */
  lastError?: string;
  /** When this instance's indexer last ran (ISO 8601); absent where another instance indexes. */
  lastRunAt?: string;
}

/**
 * `POST /bulkrerun` (200): OpenHIM's `{success, message}`, with the task Junction created (one task however many
 * transactions, where OpenHIM makes one per 1,000) and what the user should know.
 */
export interface BulkRerunAnswer extends CreatedTask {
  success: true;
  message: string;
}

/**
 * `POST /bulkrerun/preview` (200): what a bulk re-run of these filters would do, without starting it: how many match,
 * how many of them were re-run before or are re-runs themselves, and how many each choice of `latestAttemptOnly`
 * re-runs. `warnings` are those the bulk re-run would answer with (matches left out, and why).
 */
export interface BulkRerunPreview {
  /** Transactions that match the filters (among the channels the user may re-run). */
  matching: number;
  /** Of those, re-run before (they have re-runs of their own). */
  alreadyRerun: number;
  /** Of those, re-runs themselves (or automatic retries) of an earlier transaction. */
  reruns: number;
  /** Of those, ones that cannot be re-run now (the warnings say why). */
  notRerunnable: number;
  /** What a bulk re-run without `latestAttemptOnly` re-runs. */
  rerunnable: number;
  /** What a bulk re-run with `latestAttemptOnly` re-runs: the re-runnable matches that are their message's latest attempt. */
  latestAttempts: number;
  warnings: string[];
}

/** A timestamp as the write routes accept it: ISO 8601 text, or epoch milliseconds (as OpenHIM's own tests send). */
export type TimestampInput = string | number;

/**
 * A request as `POST /transactions` and `PUT /transactions/:id` accept it. `null` means "not set"; `headers: ''` is
 * OpenHIM's empty value. `bodyTruncated`/`bodyRemoved` come back from a GET: the stored body is then kept as it is.
 */
export interface RequestInput {
  host?: string | null;
  port?: number | string | null;
  path?: string | null;
  querystring?: string | null;
  method?: string | null;
  headers?: Record<string, string> | '' | null;
  body?: string | null;
  timestamp?: TimestampInput | null;
  bodyTruncated?: boolean | null;
  bodyRemoved?: boolean | null;
}

/** The transaction's own request: its timestamp places it in the log, so it is required. */
export interface TransactionRequestInput extends RequestInput {
  timestamp: TimestampInput;
}

/** A response as the write routes accept it; `status` may be numeric text, as OpenHIM's model casts it. */
export interface ResponseInput {
  status: number | string;
  headers?: Record<string, string> | '' | null;
  body?: string | null;
  timestamp?: TimestampInput | null;
  bodyTruncated?: boolean | null;
  bodyRemoved?: boolean | null;
}

export interface ErrorInput {
  message: string;
  stack?: string | null;
}

/** One route's or orchestration's exchange as the write routes accept it. */
export interface ExchangeInput {
  name: string;
  request: RequestInput;
  response?: ResponseInput | null;
  error?: ErrorInput | null;
}

/** OpenHIM's `$push`: one exchange (or a list) appended to the stored routes or orchestrations. */
export interface TransactionPushInput {
  routes?: ExchangeInput | ExchangeInput[];
  orchestrations?: ExchangeInput | ExchangeInput[];
}

/** The fields both write routes accept. */
interface TransactionWriteFields {
  /** Ignored: Junction gives a new transaction its own id, and a PUT's id is the one in the path. */
  _id?: string | null;
  clientID?: string | null;
  clientIP?: string | null;
  response?: ResponseInput | null;
  routes?: ExchangeInput[] | null;
  orchestrations?: ExchangeInput[] | null;
  properties?: Record<string, string> | null;
  error?: ErrorInput | null;
  canRerun?: boolean;
  wasRerun?: boolean;
  autoRetry?: boolean;
  /** Ignored, as answered beside a fetched document (issue 36): the reason is decided from the write, the names are the records'. */
  reason?: string | null;
  channelName?: string | null;
  clientName?: string | null;
}

/** `POST /transactions` (admin only): a transaction recorded through the API, answered 201 with it. */
export interface TransactionCreate extends TransactionWriteFields {
  channelID: string;
  status: TransactionStatus;
  request: TransactionRequestInput;
  autoRetryAttempt?: number;
}

/**
 * `PUT /transactions/:id` (admin only): the given fields replace the stored ones, `$push` appends. `parentID`,
 * `childIDs` and `autoRetryAttempt` are Junction's bookkeeping: accepted, so a fetched document can be sent back, and ignored.
 */
export interface TransactionUpdate extends TransactionWriteFields {
  channelID?: string;
  status?: TransactionStatus;
  request?: RequestInput;
  autoRetryAttempt?: number | null;
  parentID?: string | null;
  childIDs?: string[] | null;
  $push?: TransactionPushInput;
}

/** A re-run task as `POST /tasks` and `POST /bulkrerun` answer it (201). */
export interface CreatedTask extends TaskView {
  /** For instance transactions that were already re-run, or matches a bulk re-run left out. */
  warnings: string[];
}
