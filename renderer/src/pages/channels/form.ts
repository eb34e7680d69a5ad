/**
 * The channel editor's form model: what the inputs hold (text and numbers as typed, lists of rows with stable keys),
 * how a stored channel becomes a form and a form becomes the API body. The server checks the channel; the form only
 * makes sure what it sends says exactly what the person entered.
 */
import type {
  AlertCondition,
  AlertMaxFrequency,
  AlertMethod,
  Channel,
  ChannelAlertInput,
  ChannelCreate,
  ChannelRouteInput,
  ChannelType,
  ChannelUpdate,
  RewriteRule,
  RouteType,
  TcpFraming,
} from '../../../../service/contracts/channels';
import { ROUTE_PASSWORD_MASK } from '../../api/channels';
import { channelKind, routeKind } from '../../data/kinds';
import { prefixOf } from './url-prefix';

/** A number input's content: a number, or nothing typed. */
export type NumberField = number | '';

export interface RouteForm {
  key: string;
  name: string;
  type: RouteType;
  host: string;
  port: NumberField;
  path: string;
  pathTransform: string;
  primary: boolean;
  secured: boolean;
  username: string;
  /** A new password typed in; empty keeps the stored one when `passwordStored`. */
  password: string;
  /** The server holds a password for this route (it answered with the mask). */
  passwordStored: boolean;
  forwardAuthHeader: boolean;
  enabled: boolean;
  /** A secondary route sent only after the primary answered, with a status that passes `statusCodesCheck`. */
  waitPrimaryResponse: boolean;
  /** Comma-separated codes (201) and ranges (2**); empty: any answer of the primary. */
  statusCodesCheck: string;
  /** OpenHIM's Kafka settings, not edited here but kept on save. */
  kafkaClientId: string;
  kafkaTopic: string;
}

export interface RewriteRuleForm {
  key: string;
  fromHost: string;
  fromPort: NumberField;
  toHost: string;
  toPort: NumberField;
  pathTransform: string;
}

export interface RecipientForm {
  key: string;
  user: string;
  method: AlertMethod;
  maxAlerts: AlertMaxFrequency;
}

export interface AlertForm {
  key: string;
  condition: AlertCondition;
  /** A status rule on any error answer (`5xx`), which the editor calls "a transaction fails". */
  fails: boolean;
  status: string;
  failureRate: NumberField;
  groups: string[];
  users: RecipientForm[];
}

export interface PropertyForm {
  key: string;
  name: string;
  value: string;
}

export type MatchMode = 'none' | 'regex' | 'xml' | 'json';

export interface ChannelForm {
  name: string;
  description: string;
  type: ChannelType;
  urlPattern: string;
  /** The path prefix typed in, kept as typed; the URL pattern is made from it (url-prefix.ts). */
  urlPrefix: string;
  methods: string[];
  priority: NumberField;
  enabled: boolean;
  timeout: NumberField;
  tcpHost: string;
  tcpPort: NumberField;
  /** tcp and tls channels: how messages are found in a connection. */
  tcpFraming: TcpFraming;
  /** tls channels: refuse connections without a trusted client certificate. */
  requireClientCertificate: boolean;
  pollingSchedule: string;
  authType: 'private' | 'public';
  allowClients: string[];
  allowRoles: string[];
  whitelist: string[];
  txViewAcl: string[];
  txViewFullAcl: string[];
  txRerunAcl: string[];
  matchContentTypes: string[];
  matchMode: MatchMode;
  matchContentRegex: string;
  matchContentXpath: string;
  matchContentJson: string;
  matchContentValue: string;
  requestBody: boolean;
  responseBody: boolean;
  limitBodyAge: boolean;
  maxBodyAgeDays: NumberField;
  autoRetryEnabled: boolean;
  autoRetryPeriodMinutes: NumberField;
  limitRetries: boolean;
  autoRetryMaxAttempts: NumberField;
  rewriteUrls: boolean;
  addAutoRewriteRules: boolean;
  rewriteUrlsConfig: RewriteRuleForm[];
  alerts: AlertForm[];
  properties: PropertyForm[];
  routes: RouteForm[];
}

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT'];

let lastKey = 0;
/** A key for a new row, stable while rows are added, removed and moved. */
export function rowKey(): string {
  lastKey += 1;
  return `row-${lastKey}`;
}

/** The stored status of a rule the editor calls "a transaction fails": any error answer (OpenHIM's status pattern). */
export const FAILS_STATUS = '5xx';

/** The route type a new route of this channel starts as: MLLP for a tcp or tls channel (TCP when it reads streams), else HTTP. */
export function defaultRouteType(form: Pick<ChannelForm, 'type' | 'tcpFraming'>): RouteType {
  if (!channelKind(form.type).listens) return 'http';
  return form.tcpFraming === 'stream' ? 'tcp' : 'mllp';
}

/** Routes nobody has filled in yet take `type`, so a new MLLP channel's first route is an MLLP route without asking. */
export function retypeUntouched(routes: RouteForm[], type: RouteType): RouteForm[] {
  return routes.map((r) => (r.name.trim() === '' && r.host.trim() === '' && r.port === '' && r.type !== type ? { ...r, type } : r));
}

export function newRoute(primary: boolean, type: RouteType = 'http'): RouteForm {
  return {
    key: rowKey(),
    name: '',
    type,
    host: '',
    port: '',
    path: '',
    pathTransform: '',
    primary,
    secured: false,
    username: '',
    password: '',
    passwordStored: false,
    forwardAuthHeader: false,
    waitPrimaryResponse: false,
    statusCodesCheck: '',
    kafkaClientId: '',
    kafkaTopic: '',
    enabled: true,
  };
}

export function newRewriteRule(): RewriteRuleForm {
  return { key: rowKey(), fromHost: '', fromPort: '', toHost: '', toPort: '', pathTransform: '' };
}

export function newRecipient(): RecipientForm {
  return { key: rowKey(), user: '', method: 'email', maxAlerts: 'no max' };
}

export function newAlert(): AlertForm {
  return { key: rowKey(), condition: 'status', fails: false, status: '', failureRate: '', groups: [], users: [] };
}

export function newProperty(): PropertyForm {
  return { key: rowKey(), name: '', value: '' };
}

/** The form of a channel not yet created: the service's defaults, with one primary route to fill in. */
export function emptyForm(): ChannelForm {
  return {
    name: '',
    description: '',
    type: 'http',
    urlPattern: '',
    urlPrefix: '',
    methods: [],
    priority: '',
    enabled: true,
    timeout: '',
    tcpHost: '',
    tcpPort: '',
    tcpFraming: 'auto',
    requireClientCertificate: false,
    pollingSchedule: '',
    authType: 'private',
    allowClients: [],
    allowRoles: [],
    whitelist: [],
    txViewAcl: [],
    txViewFullAcl: [],
    txRerunAcl: [],
    matchContentTypes: [],
    matchMode: 'none',
    matchContentRegex: '',
    matchContentXpath: '',
    matchContentJson: '',
    matchContentValue: '',
    requestBody: true,
    responseBody: true,
    limitBodyAge: false,
    maxBodyAgeDays: '',
    autoRetryEnabled: false,
    autoRetryPeriodMinutes: 60,
    limitRetries: false,
    autoRetryMaxAttempts: '',
    rewriteUrls: false,
    addAutoRewriteRules: true,
    rewriteUrlsConfig: [],
    alerts: [],
    properties: [],
    routes: [newRoute(true)],
  };
}

function matchMode(channel: Channel): MatchMode {
  if (channel.matchContentRegex !== undefined) return 'regex';
  if (channel.matchContentXpath !== undefined) return 'xml';
  if (channel.matchContentJson !== undefined) return 'json';
  return 'none';
}

/** A stored channel as a form; `clientIds` tells which `allow` entries are clients (the rest are roles). */
export function formFromChannel(channel: Channel, clientIds: ReadonlySet<string>): ChannelForm {
  return {
    name: channel.name,
    description: channel.description ?? '',
    type: channel.type,
    urlPattern: channel.urlPattern,
    urlPrefix: prefixOf(channel.urlPattern) ?? '',
    methods: [...channel.methods],
    priority: channel.priority ?? '',
    enabled: channel.status !== 'disabled',
    timeout: channel.timeout ?? '',
    tcpHost: channel.tcpHost ?? '',
    tcpPort: channel.tcpPort ?? '',
    tcpFraming: channel.tcpFraming ?? 'auto',
    requireClientCertificate: channel.requireClientCertificate === true,
    pollingSchedule: channel.pollingSchedule ?? '',
    authType: channel.authType,
    allowClients: channel.allow.filter((a) => clientIds.has(a)),
    allowRoles: channel.allow.filter((a) => !clientIds.has(a)),
    whitelist: [...channel.whitelist],
    txViewAcl: [...channel.txViewAcl],
    txViewFullAcl: [...channel.txViewFullAcl],
    txRerunAcl: [...channel.txRerunAcl],
    matchContentTypes: [...channel.matchContentTypes],
    matchMode: matchMode(channel),
    matchContentRegex: channel.matchContentRegex ?? '',
    matchContentXpath: channel.matchContentXpath ?? '',
    matchContentJson: channel.matchContentJson ?? '',
    matchContentValue: channel.matchContentValue ?? '',
    requestBody: channel.requestBody,
    responseBody: channel.responseBody,
    limitBodyAge: channel.maxBodyAgeDays !== undefined,
    maxBodyAgeDays: channel.maxBodyAgeDays ?? '',
    autoRetryEnabled: channel.autoRetryEnabled,
    autoRetryPeriodMinutes: channel.autoRetryPeriodMinutes,
    // 0 means unlimited, as in OpenHIM.
    limitRetries: channel.autoRetryMaxAttempts !== undefined && channel.autoRetryMaxAttempts > 0,
    autoRetryMaxAttempts: channel.autoRetryMaxAttempts === undefined || channel.autoRetryMaxAttempts === 0 ? '' : channel.autoRetryMaxAttempts,
    rewriteUrls: channel.rewriteUrls,
    addAutoRewriteRules: channel.addAutoRewriteRules,
    rewriteUrlsConfig: channel.rewriteUrlsConfig.map((r) => ({
      key: rowKey(),
      fromHost: r.fromHost,
      fromPort: r.fromPort,
      toHost: r.toHost,
      toPort: r.toPort,
      pathTransform: r.pathTransform ?? '',
    })),
    alerts: channel.alerts.map((a) => ({
      key: rowKey(),
      condition: a.condition,
      fails: a.condition === 'status' && (a.status ?? '').trim().toLowerCase() === FAILS_STATUS,
      status: a.status ?? '',
      failureRate: a.failureRate ?? '',
      groups: [...a.groups],
      users: a.users.map((u) => ({ key: rowKey(), user: u.user, method: u.method, maxAlerts: u.maxAlerts })),
    })),
    properties: channel.properties.flatMap((p) => Object.entries(p).map(([name, value]) => ({ key: rowKey(), name, value }))),
    routes: channel.routes.map((r) => ({
      key: rowKey(),
      name: r.name,
      type: r.type,
      host: r.host,
      port: r.port,
      path: r.path ?? '',
      pathTransform: r.pathTransform ?? '',
      primary: r.primary,
      secured: r.secured,
      username: r.username ?? '',
      password: '',
      passwordStored: r.password !== undefined,
      forwardAuthHeader: r.forwardAuthHeader,
      enabled: r.status !== 'disabled',
      waitPrimaryResponse: r.waitPrimaryResponse,
      statusCodesCheck: r.statusCodesCheck ?? '',
      kafkaClientId: r.kafkaClientId ?? '',
      kafkaTopic: r.kafkaTopic ?? '',
    })),
  };
}

/** Text as typed, or null when empty (null removes a setting on update; a create leaves it out). */
function text(value: string): string | null {
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

function num(value: NumberField): number | null {
  return value === '' ? null : value;
}

/** Puts a key in `target` only when it has a value: for optional fields inside routes, rules and alerts. */
function optional<T extends object, K extends string, V>(target: T, key: K, value: V | null): T & Partial<Record<K, V>> {
  return value === null ? target : { ...target, [key]: value };
}

/** Route types sent over a socket (tcp, mllp): paths, basic authentication and forwarded headers mean nothing to them. */
export function isSocketRoute(type: RouteType): boolean {
  return routeKind(type).socket;
}

function routeBody(route: RouteForm): ChannelRouteInput {
  const http = !isSocketRoute(route.type);
  // A missing port is left out so the server names it as required next to the field.
  let body = {
    name: route.name.trim(),
    type: route.type,
    host: route.host.trim(),
    primary: route.primary,
    secured: route.secured,
    // The editor hides the http-only settings of a socket route, so what is hidden is not kept either.
    forwardAuthHeader: http && route.forwardAuthHeader,
    status: route.enabled ? 'enabled' : 'disabled',
    // The primary never waits for itself.
    waitPrimaryResponse: !route.primary && route.waitPrimaryResponse,
  } as ChannelRouteInput;
  if (body.waitPrimaryResponse === true) body = optional(body, 'statusCodesCheck', text(route.statusCodesCheck));
  body = optional(body, 'kafkaClientId', text(route.kafkaClientId));
  body = optional(body, 'kafkaTopic', text(route.kafkaTopic));
  body = optional(body, 'port', num(route.port));
  if (!http) return body;
  body = optional(body, 'path', text(route.path));
  body = optional(body, 'pathTransform', text(route.pathTransform));
  body = optional(body, 'username', text(route.username));
  const password = route.password !== '' ? route.password : route.passwordStored ? ROUTE_PASSWORD_MASK : null;
  return optional(body, 'password', password);
}

function ruleBody(rule: RewriteRuleForm): RewriteRule {
  // Missing ports are left out for the server to name, as for routes.
  const body = { fromHost: rule.fromHost.trim(), toHost: rule.toHost.trim() };
  return optional(optional(optional(body, 'fromPort', num(rule.fromPort)), 'toPort', num(rule.toPort)), 'pathTransform', text(rule.pathTransform)) as RewriteRule;
}

function alertBody(alert: AlertForm): ChannelAlertInput {
  let body: ChannelAlertInput = {
    condition: alert.condition,
    groups: alert.groups,
    users: alert.users.map((u) => ({ user: u.user.trim(), method: u.method, maxAlerts: u.maxAlerts })),
  };
  if (alert.condition === 'status') body = optional(body, 'status', alert.fails ? FAILS_STATUS : text(alert.status));
  // A refusals alert fires on any refusal: it has no rate.
  return alert.condition === 'refusals' ? body : optional(body, 'failureRate', num(alert.failureRate));
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** Channel types that listen on their own port (tcp, tls) rather than being matched by URL. */
export function isSocketChannel(type: ChannelType): boolean {
  return channelKind(type).listens;
}

/**
 * The whole channel as a PUT body: every setting the editor shows, null for the optional ones left empty (so they
 * are removed), and settings of other channel types or matching modes removed too. A tcp or tls channel takes
 * everything arriving on its port, so the request matching the editor hides for it is cleared.
 */
export function updateBody(form: ChannelForm): ChannelUpdate {
  const socket = isSocketChannel(form.type);
  const mode = socket ? 'none' : form.matchMode;
  const body: ChannelUpdate = {
    name: form.name.trim(),
    description: text(form.description),
    type: form.type,
    urlPattern: socket ? '' : form.urlPattern.trim(),
    methods: socket ? [] : form.methods,
    priority: num(form.priority),
    status: form.enabled ? 'enabled' : 'disabled',
    timeout: num(form.timeout),
    tcpHost: socket ? text(form.tcpHost) : null,
    tcpPort: socket ? num(form.tcpPort) : null,
    tcpFraming: socket ? form.tcpFraming : null,
    requireClientCertificate: channelKind(form.type).secure ? form.requireClientCertificate : null,
    pollingSchedule: channelKind(form.type).polls ? text(form.pollingSchedule) : null,
    authType: form.authType,
    allow: unique([...form.allowClients, ...form.allowRoles]),
    whitelist: form.whitelist,
    txViewAcl: form.txViewAcl,
    txViewFullAcl: form.txViewFullAcl,
    txRerunAcl: form.txRerunAcl,
    matchContentTypes: socket ? [] : form.matchContentTypes,
    matchContentRegex: mode === 'regex' ? text(form.matchContentRegex) : null,
    matchContentXpath: mode === 'xml' ? text(form.matchContentXpath) : null,
    matchContentJson: mode === 'json' ? text(form.matchContentJson) : null,
    matchContentValue: mode === 'xml' || mode === 'json' ? text(form.matchContentValue) : null,
    requestBody: form.requestBody,
    responseBody: form.responseBody,
    maxBodyAgeDays: form.limitBodyAge ? num(form.maxBodyAgeDays) : null,
    autoRetryEnabled: form.autoRetryEnabled,
    autoRetryMaxAttempts: form.limitRetries ? num(form.autoRetryMaxAttempts) : null,
    rewriteUrls: form.rewriteUrls,
    addAutoRewriteRules: form.addAutoRewriteRules,
    rewriteUrlsConfig: form.rewriteUrlsConfig.map(ruleBody),
    alerts: form.alerts.map(alertBody),
    properties: form.properties.map((p) => ({ [p.name.trim()]: p.value })),
    routes: form.routes.map(routeBody),
  };
  // The retry wait is required by the service; an empty box is left out so the stored value stays.
  if (form.autoRetryPeriodMinutes !== '') body.autoRetryPeriodMinutes = form.autoRetryPeriodMinutes;
  return body;
}

/** The same channel as a POST body: nothing null, empty optional settings simply left out. */
export function createBody(form: ChannelForm): ChannelCreate {
  const entries = Object.entries(updateBody(form)).filter(([, value]) => value !== null);
  return Object.fromEntries(entries) as ChannelCreate;
}

/** The obvious problems found before asking the server, keyed and worded like the server's field problems. */
export function clientProblems(form: ChannelForm): Record<string, string> {
  const problems: Record<string, string> = {};
  if (form.name.trim() === '') problems.name = 'is required';
  if (isSocketChannel(form.type) && form.tcpPort === '') problems.tcpPort = `is required for ${form.type} channels`;
  if (form.routes.length === 0) problems.routes = 'must include at least one route';
  else {
    const primaries = form.routes.filter((r) => r.enabled && r.primary).length;
    if (primaries !== 1) problems.routes = 'must have exactly one enabled route marked as primary';
  }
  // A ticked limit with no number would silently mean "no limit".
  if (form.limitRetries && form.autoRetryMaxAttempts === '') problems.autoRetryMaxAttempts = 'is needed when the number of attempts is limited';
  if (form.limitBodyAge && form.maxBodyAgeDays === '') problems.maxBodyAgeDays = 'is needed when stored bodies are deleted after some days';
  return problems;
}
