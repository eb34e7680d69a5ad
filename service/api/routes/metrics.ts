/**
 * Metrics: `GET /metrics`, `/metrics/channels[/:channelID]` and `/metrics/timeseries/:timeSeries[/channels[/:channelID]]`,
 * over the channels whose transactions the caller may view (OpenHIM has no named permission for these). Each answer
 * says in the `Metrics-Time-Zone` header which zone its buckets were cut in. `GET /metrics` with an Accept naming
 * OpenMetrics answers the Prometheus exposition instead: admins only, or anyone when `prometheus.public` is set.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { invalidInput } from '../../refusals.js';
import { isAdmin } from '../../domain/permissions.js';
import { transactionAccess, viewableChannels } from '../../domain/transaction-access.js';
import { parseMetricsQuery } from '../../domain/metric-periods.js';
import type { MetricItem, MetricsGrouping } from '../../domain/metric-buckets.js';
import type { ChannelCatalogue } from '../../channels/catalogue.js';
import type { MetricsReader } from '../../metrics/reader.js';
import { wantsExposition } from '../../metrics/prometheus.js';
import type { PrometheusMetrics } from '../../metrics/prometheus.js';
import type { UserRecord } from '../../storage/records.js';
import { currentUser } from '../auth/hook.js';
import { requireAdmin } from '../guards.js';
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

  return async (app) => {
    app.get(
      '/metrics',
      {
        config: { publicWhen: (request) => deps.prometheusPublic && wantsExposition(request.headers.accept) },
        schema: { querystring: MetricsQuery, response: { 200: MetricItemsAnswer } },
      },
      async (request, reply) => {
        if (wantsExposition(request.headers.accept)) {
          if (!deps.prometheusPublic) requireAdmin(request, 'read the Prometheus metrics (or set prometheus.public)');
          const text = await prometheus.exposition();
          // Text in its own content type, which the JSON response schema (for the other answer) does not describe.
          return reply.type(prometheus.contentType).send(text as unknown as MetricItem[]);
        }
        return answer(request, reply, request.query, 'overall', {});
      },
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
