/**
 * The defaults of a channel body (OpenHIM's), applied before the channel rules run. Shared by every writer of channels
 * (POST/PUT /channels, a mediator's default channels), so a channel means the same whichever way it arrives. Pure.
 */
import type { AlertRecord, RouteRecord } from '../storage/records.js';
import type { ChannelDraft } from './channel-rules.js';

/** A route as a caller sends it: name, host and port, the rest defaulted. */
export type RouteInput = Pick<RouteRecord, 'name' | 'host' | 'port'> & Partial<Omit<RouteRecord, 'name' | 'host' | 'port'>>;

/** A complete channel body (a POST body, or a stored channel with a PUT merged onto it) before defaults. */
export type ChannelInput = Partial<Omit<ChannelDraft, 'name' | 'routes' | 'alerts'>> & {
  name: string;
  routes: readonly RouteInput[];
  alerts?: readonly Partial<AlertRecord>[];
};

/** A route with its defaults; empty optional strings, as forms send them, mean "not set". */
export function routeRecord(route: RouteInput): RouteRecord {
  const { path, pathTransform, username, password, ...rest } = route;
  const optional = Object.fromEntries(Object.entries({ path, pathTransform, username, password }).filter(([, v]) => v !== undefined && v !== ''));
  return { type: 'http', primary: false, secured: false, forwardAuthHeader: false, status: 'enabled', ...rest, ...optional };
}

function alertRecord(alert: Partial<AlertRecord>): AlertRecord {
  return { condition: 'status', groups: [], users: [], ...alert };
}

/** Fills the defaults of a complete channel body. */
export function channelDraft(body: ChannelInput): ChannelDraft {
  const type = body.type ?? 'http';
  const socket = type === 'tcp' || type === 'tls';
  return {
    urlPattern: '',
    status: 'enabled',
    authType: 'private',
    allow: [],
    whitelistedIPs: [],
    matchContentTypes: [],
    requestBody: true,
    responseBody: true,
    autoRetryEnabled: false,
    autoRetryPeriodMinutes: 60,
    rewriteUrls: false,
    addAutoRewriteRules: true,
    rewriteUrlsConfig: [],
    txViewAcl: [],
    txViewFullAcl: [],
    txRerunAcl: [],
    properties: [],
    ...body,
    ...(socket && body.tcpHost === undefined ? { tcpHost: '0.0.0.0' } : {}),
    type,
    methods: (body.methods ?? []).map((m) => m.toUpperCase()),
    alerts: (body.alerts ?? []).map(alertRecord),
    routes: body.routes.map(routeRecord),
  };
}
