/**
 * Which answer a `GET /metrics` gets: OpenHIM's JSON totals or the Prometheus exposition, and in which of the two
 * exposition formats. OpenHIM serves the exposition only to an Accept naming OpenMetrics, so promtool, Telegraf and
 * curl (classic text format, `*\/*`, or no Accept) got the JSON route's 400 asking for dates. The rules below serve
 * them too without changing any answer a JSON client could have used: a request with either date keeps the JSON
 * route unless its Accept is plainly a scraper's.
 */
import Negotiator from 'negotiator';

/** The two exposition formats: Prometheus text 0.0.4, and OpenMetrics text 1.0.0. */
export type ExpositionFormat = 'text' | 'openmetrics';

export type MetricsAnswer = { kind: 'json' } | { kind: 'exposition'; format: ExpositionFormat };

// In order of preference when the Accept ranks both alike (`*/*` or none): the classic text format is the one every
// scraper and linter reads (promtool 2.x parses only it).
const OFFERED: readonly { format: ExpositionFormat; mediaType: string }[] = [
  { format: 'text', mediaType: 'text/plain; version=0.0.4' },
  { format: 'openmetrics', mediaType: 'application/openmetrics-text; version=1.0.0' },
];

/** The media ranges an Accept header names with a non-zero quality, as `type/subtype`, lower case. */
function namedTypes(accept: string | undefined): string[] {
  if (accept === undefined || accept.trim() === '') return [];
  return new Negotiator({ headers: { accept } }).mediaTypes().map((type) => type.toLowerCase());
}

/**
 * The exposition format the Accept header prefers, by its qualities (RFC 9110 content negotiation). A header that
 * accepts neither gets the text format all the same (the server may disregard Accept rather than answer 406, and a
 * monitoring agent reads its own error better from a body than from a status).
 */
export function expositionFormat(accept: string | undefined): ExpositionFormat {
  const preferred = new Negotiator({ headers: accept === undefined ? {} : { accept } }).mediaType(OFFERED.map((o) => o.mediaType));
  return OFFERED.find((o) => o.mediaType === preferred)?.format ?? 'text';
}

/** A scraper's Accept: it names OpenMetrics, or the text format by its version parameter (no browser sends that). */
export function acceptsExposition(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  if (namedTypes(accept).includes('application/openmetrics-text')) return true;
  return accept.split(',').some((range) => /^\s*text\/plain\s*;(?:[^;]*;)*\s*version\s*=/i.test(range) && !/;\s*q\s*=\s*0(?:\.0*)?\s*(?:;|$)/i.test(range));
}

/** True when the Accept header names a JSON media type (`application/json`, or any `+json`). */
function acceptsJson(accept: string | undefined): boolean {
  return namedTypes(accept).some((type) => type === 'application/json' || type.endsWith('+json'));
}

/**
 * The answer of `GET /metrics`:
 * - a scraper's Accept (OpenMetrics, OpenHIM's rule, or `text/plain; version=0.0.4`): the exposition;
 * - none of the JSON route's parameters (`startDate`, `endDate`, `timeZone`), and an Accept naming no JSON type
 *   (curl's `*\/*`, none, a browser's): the exposition, where the JSON route could only have answered 400;
 * - otherwise OpenHIM's JSON route.
 */
export function metricsAnswer(accept: string | undefined, query: { startDate?: string | undefined; endDate?: string | undefined; timeZone?: string | undefined }): MetricsAnswer {
  const noJsonQuery = query.startDate === undefined && query.endDate === undefined && query.timeZone === undefined;
  if (acceptsExposition(accept) || (noJsonQuery && !acceptsJson(accept))) return { kind: 'exposition', format: expositionFormat(accept) };
  return { kind: 'json' };
}
