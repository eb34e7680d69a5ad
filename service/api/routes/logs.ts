/**
 * `GET /logs` (OPENHIM-FACTS 8.2): Junction's own log lines, admins only. Unlike OpenHIM, the level is applied before
 * `start` and `limit`, so paging counts the lines a caller sees, and `limit` is capped.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { invalidInput } from '../../refusals.js';
import { badlyEscapedKeys, parseLogQuery } from '../../domain/operations/log-lines.js';
import { readLogs } from '../../logs/reader.js';
import { requireAdmin } from '../guards.js';
import { LogsAnswer, LogsQuery } from '../schemas/logs.js';

export interface LogRoutesDeps {
  /** The folder of Junction's log files; null when the log file is off (then no lines are answered). */
  logsDir: string | null;
  clock?: () => number;
}

export function logRoutes(deps: LogRoutesDeps): FastifyPluginAsyncTypebox {
  const now = deps.clock ?? Date.now;
  return async (app) => {
    // Its own requests are not logged at info: the console's Logs page, following new lines, would otherwise show its
    // own polls every two seconds.
    app.get('/logs', { logLevel: 'warn', schema: { querystring: LogsQuery, response: { 200: LogsAnswer } } }, async (request) => {
      requireAdmin(request, 'read the server logs');
      const query = request.url.indexOf('?');
      const garbled = query < 0 ? [] : badlyEscapedKeys(request.url.slice(query + 1));
      if (garbled.length > 0) throw invalidInput(garbled.map((key) => ({ path: `querystring.${key}`, message: 'has a malformed percent-escape: encode the text (as %25 for %)' })));
      const parsed = parseLogQuery(request.query, now());
      if (!parsed.ok) throw invalidInput(parsed.problems);
      if (deps.logsDir === null) return [];
      return readLogs(deps.logsDir, parsed.value);
    });
  };
}
