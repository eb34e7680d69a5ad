/**
 * Metrics: `GET /metrics`, `/metrics/channels[/:channelID]` and `/metrics/timeseries/:timeSeries[/channels[/:channelID]]`,
 * over the channels whose transactions the caller may view (OpenHIM has no named permission for these). Each answer
 * says in the `Metrics-Time-Zone` header which zone its buckets were cut in. The Prometheus exposition is
 * `GET /metrics/prometheus`, and `GET /metrics` too when a scraper asks for it (`domain/operations/metrics-negotiation.ts`):
 * admins only, or anyone when `prometheus.public` is set.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { invalidInput } from '../../refusals.js';
import { isAdmin } from '../../domain/access/permissions.js';
import { transactionAccess, viewableChannels } from '../../domain/transactions/transaction-access.js';
import { parseMetricsQuery } from '../../domain/operations/metric-periods.js';
import type { MetricItem, MetricsGrouping } from '../../domain/operations/metric-buckets.js';
import type { ChannelCatalogue } from '../../channels/catalogue.js';
import type { MetricsReader } from '../../metrics/reader.js';
import { expositionFormat, metricsAnswer } from '../../domain/operations/metrics-negotiation.js';
import type { ExpositionFormat } from '../../domain/operations/metrics-negotiation.js';
import { PrometheusMetrics } from '../../metrics/prometheus.js';
import type { UserRecord } from '../../storage/records.js';
import { currentUser } from '../auth/hook.js';
import { requireAdmin } from '../guards.js';
import { NoQuery } from '../schemas/common.js';
import { MetricItemsAnswer, MetricsChannelParams, MetricsQuery, MetricsSeriesChannelParams, MetricsSeriesParams } from '../schemas/metrics.js';

export interface MetricsRoutesDeps {
  metrics: MetricsReader;
  prometheus: PrometheusMetrics;
  /** `prometheus.public`: the exposition needs no credentials. */
  prometheusPublic: boolean;
  /** The zone a query without `timeZone` is read in when its dates' offsets match it (the `timeZone` setting). */
  timeZone: string;
  channels: ChannelCatalogue;
}

/** The response header naming the zone of the answer's buckets. */
export const METRICS_ZONE_HEADER = 'metrics-time-zone';

const MISSING_DATES = 'Both start and end date are required: send startDate and endDate as ISO 8601 with their offset, such as 2026-11-24T07:00:00+02:00';

export function metricsRoutes(deps: MetricsRoutesDeps): FastifyPluginAsyncTypebox {
  const { metrics, prometheus, channels } = deps;

  /**
   * The channels whose buckets the caller may read: undefined for every channel (admins), or a list. A channel in the
   * path that a non-admin may not view is 403 whether or not it exists (as for a transaction), so the answer does not
   * tell which ids exist; an admin asking for an unknown one gets 404.
   */
  async function scope(user: UserRecord, channelID: string | undefined): Promise<readonly string[] | undefined> {
    if (channelID !== undefined) {
      const channel = await channels.find(channelID);
      if (isAdmin(user)) {
        if (channel === null) throw new AppError('NOT_FOUND', `No channel with id ${channelID}`);
      } else if (channel === null || !transactionAccess(user, channel).view) {
        throw new AppError('FORBIDDEN', `You are not allowed to view the metrics of channel ${channelID}`);
      }
      return [channelID];
    }
    if (isAdmin(user)) return undefined;
    // Deleted channels are included: their buckets keep their history and their ACLs, as their transactions do.
    const visible = viewableChannels(user, await channels.list(true));
    return visible === 'all' ? undefined : [...visible.keys()];
  }

  async function answer(request: FastifyRequest, reply: FastifyReply, query: MetricsQuery, grouping: MetricsGrouping, params: { timeSeries?: string; channelID?: string }): Promise<MetricItem[]> {
    const parsed = parseMetricsQuery(query, deps.timeZone, params.timeSeries === undefined ? {} : { period: params.timeSeries });
    if (!parsed.ok) {
      const missing = [query.startDate, query.endDate].some((date) => date === undefined || date === '');
      throw missing ? new AppError('VALIDATION_FAILED', MISSING_DATES, parsed.problems) : invalidInput(parsed.problems);
    }
    const channelIDs = await scope(currentUser(request), params.channelID);
    const items = await metrics.items(parsed.query, grouping, channelIDs);
    void reply.header(METRICS_ZONE_HEADER, parsed.query.timeZone);
    return items;
  }

  /** The exposition in `format`, to an admin, or to anyone with `prometheus.public`. */
  async function exposition(request: FastifyRequest, reply: FastifyReply, format: ExpositionFormat): Promise<FastifyReply> {
    if (!deps.prometheusPublic) requireAdmin(request, 'read the Prometheus metrics (or set prometheus.public)');
    const text = await prometheus.exposition(format);
    // The answer depends on Accept, so a cache between Prometheus and Junction must keep each format apart.
    return reply.type(PrometheusMetrics.contentTypeOf(format)).header('vary', 'accept').send(text);
  }

  // The auth hook runs before the query is validated: only whether each date is there counts.
  const exposes = (request: FastifyRequest): boolean => {
    const query = typeof request.query === 'object' && request.query !== null ? request.query : {};
    const given = (key: string): string | undefined => (key in query ? '' : undefined);
    return metricsAnswer(request.headers.accept, { startDate: given('startDate'), endDate: given('endDate'), timeZone: given('timeZone') }).kind === 'exposition';
  };

  return async (app) => {
    app.get(
      '/metrics',
      {
        config: { publicWhen: (request) => deps.prometheusPublic && exposes(request) },
        schema: { querystring: MetricsQuery, response: { 200: MetricItemsAnswer } },
      },
      async (request, reply) => {
        const chosen = metricsAnswer(request.headers.accept, request.query);
        if (chosen.kind === 'exposition') {
          // Text in its own content type, which the JSON response schema (for the other answer) does not describe.
          return exposition(request, reply, chosen.format);
        }
        void reply.header('vary', 'accept');
        return answer(request, reply, request.query, 'overall', {});
      },
    );

    // The exposition on a path of its own, whatever the Accept header and query say.
    app.get('/metrics/prometheus', { config: { publicWhen: () => deps.prometheusPublic }, schema: { querystring: NoQuery } }, async (request, reply) =>
      exposition(request, reply, expositionFormat(request.headers.accept)),
    );

    app.get('/metrics/channels', { schema: { querystring: MetricsQuery, response: { 200: MetricItemsAnswer } } }, async (request, reply) =>
      answer(request, reply, request.query, 'channels', {}),
    );

    app.get('/metrics/channels/:channelID', { schema: { params: MetricsChannelParams, querystring: MetricsQuery, response: { 200: MetricItemsAnswer } } }, async (request, reply) =>
      answer(request, reply, request.query, 'channels', request.params),
    );

    app.get('/metrics/timeseries/:timeSeries', { schema: { params: MetricsSeriesParams, querystring: MetricsQuery, response: { 200: MetricItemsAnswer } } }, async (request, reply) =>
      answer(request, reply, request.query, 'timeseries', request.params),
    );

    app.get('/metrics/timeseries/:timeSeries/channels', { schema: { params: MetricsSeriesParams, querystring: MetricsQuery, response: { 200: MetricItemsAnswer } } }, async (request, reply) =>
      answer(request, reply, request.query, 'timeseries-channels', request.params),
    );

    app.get(
      '/metrics/timeseries/:timeSeries/channels/:channelID',
      { schema: { params: MetricsSeriesChannelParams, querystring: MetricsQuery, response: { 200: MetricItemsAnswer } } },
      async (request, reply) => answer(request, reply, request.query, 'timeseries-channels', request.params),
    );
  };
}
