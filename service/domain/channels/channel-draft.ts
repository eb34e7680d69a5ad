/**
 * The defaults of a channel body (OpenHIM's), applied before the channel rules run. Shared by every writer of channels
 * (POST/PUT /channels, a mediator's default channels), so a channel means the same whichever way it arrives. Pure.
 */
import type { ChannelAlert, ChannelAlertInput, ChannelCreate, ChannelRoute, ChannelRouteInput, ChannelStatus } from '../../contracts/channels.js';
import { newChannelBody } from './channel-body.js';
import { channelKind } from './channel-kinds.js';
import type { ChannelDraft } from './channel-rules.js';

/** A route as a caller sends it: name, host and port, the rest defaulted; optional texts may be null or empty. */
export type RouteInput = ChannelRouteInput;

/** A complete channel body (a POST body, or a stored channel with a PUT merged onto it) before defaults. */
export type ChannelInput = Omit<ChannelCreate, 'status' | 'routes' | 'alerts'> & {
  status?: ChannelStatus;
  routes: readonly RouteInput[];
  alerts?: readonly ChannelAlertInput[];
};

/** A channel body once read: no nulls, empty texts, read-only fields or legacy names left. */
type PlainInput = Partial<Omit<ChannelDraft, 'name' | 'routes' | 'alerts'>> & { name: string; routes: readonly RouteInput[]; alerts?: readonly ChannelAlertInput[] };

/** Optional texts of a route; empty or null, as forms and OpenHIM's documents send them, means "not set". */
const ROUTE_TEXTS = ['path', 'pathTransform', 'username', 'password', 'statusCodesCheck', 'kafkaClientId', 'kafkaTopic'] as const;

/** A route with its defaults (OpenHIM's); a `kafka` type is kept for the rules to refuse. */
export function routeRecord(route: RouteInput): ChannelRoute {
  const rest: Record<string, unknown> = { ...route };
  for (const key of ROUTE_TEXTS) if (rest[key] === '' || rest[key] === null || rest[key] === undefined) delete rest[key];
  return { type: 'http', primary: false, secured: false, forwardAuthHeader: false, status: 'enabled', waitPrimaryResponse: false, ...rest } as ChannelRoute;
}

function alertRecord(alert: ChannelAlertInput): ChannelAlert {
  return { condition: 'status', groups: [], users: [], ...alert };
}

/** Fills the defaults of a complete channel body, read as domain/channels/channel-body.ts says (nulls, '' and read-only fields). */
export function channelDraft(input: ChannelInput): ChannelDraft {
  const body = newChannelBody(input) as unknown as PlainInput;
  const type = body.type ?? 'http';
  const kind = channelKind(type);
  const socket = (kind?.listener ?? null) !== null;
  return {
    urlPattern: '',
    status: 'enabled',
    authType: 'private',
    allow: [],
    whitelist: [],
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
    ...(socket && body.tcpFraming === undefined ? { tcpFraming: 'auto' as const } : {}),
    ...(kind?.clientCertificates === true && body.requireClientCertificate === undefined ? { requireClientCertificate: false } : {}),
    type,
    methods: (body.methods ?? []).map((m) => m.toUpperCase()),
    alerts: (body.alerts ?? []).map(alertRecord),
    routes: body.routes.map(routeRecord),
  };
}
