/** Which answer `GET /metrics` gives, and in which exposition format, by Accept and the query's dates. */
import { describe, expect, it } from 'vitest';
import { expositionFormat, metricsAnswer } from '../../service/domain/operations/metrics-negotiation.js';

const DATES = { startDate: '2024-01-01T00:00:00Z', endDate: '2024-01-02T00:00:00Z' };

describe('metricsAnswer', () => {
  it("gives a scraper's Accept the exposition, dates or not", () => {
    expect(metricsAnswer('application/openmetrics-text', DATES)).toEqual({ kind: 'exposition', format: 'openmetrics' });
    expect(metricsAnswer('text/plain;version=0.0.4', DATES)).toEqual({ kind: 'exposition', format: 'text' });
    expect(metricsAnswer('text/plain; charset=utf-8; version=0.0.4;q=0.3, */*;q=0.1', DATES)).toEqual({ kind: 'exposition', format: 'text' });
  });

  it('gives a request without dates the exposition unless it asks for JSON', () => {
    expect(metricsAnswer(undefined, {})).toEqual({ kind: 'exposition', format: 'text' });
    expect(metricsAnswer('*/*', {})).toEqual({ kind: 'exposition', format: 'text' });
    expect(metricsAnswer('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', {})).toEqual({ kind: 'exposition', format: 'text' });
    expect(metricsAnswer('application/json, text/plain, */*', {})).toEqual({ kind: 'json' });
    expect(metricsAnswer('application/problem+json', {})).toEqual({ kind: 'json' });
  });

  it('keeps the JSON route for OpenHIM clients that send a date', () => {
    expect(metricsAnswer('application/json, text/plain, */*', DATES)).toEqual({ kind: 'json' });
    expect(metricsAnswer('*/*', DATES)).toEqual({ kind: 'json' });
    expect(metricsAnswer(undefined, { startDate: DATES.startDate })).toEqual({ kind: 'json' });
    expect(metricsAnswer(undefined, { timeZone: 'Africa/Nairobi' })).toEqual({ kind: 'json' });
    // A text/plain without a version is what browsers and axios send: not a scrape.
    expect(metricsAnswer('text/plain', DATES)).toEqual({ kind: 'json' });
    // Refused outright with q=0.
    expect(metricsAnswer('text/plain;version=0.0.4;q=0, application/json', DATES)).toEqual({ kind: 'json' });
    expect(metricsAnswer('application/openmetrics-text;q=0, application/json', DATES)).toEqual({ kind: 'json' });
  });
});

describe('expositionFormat', () => {
  it("follows the Accept's qualities, and prefers the classic text format on a tie or no match", () => {
    const prometheus = 'application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2';
    expect(expositionFormat(prometheus)).toBe('openmetrics');
    expect(expositionFormat('text/plain;version=0.0.4;q=0.9, application/openmetrics-text;q=0.5')).toBe('text');
    expect(expositionFormat('application/openmetrics-text; version=0.0.1')).toBe('text');
    expect(expositionFormat('*/*')).toBe('text');
    expect(expositionFormat(undefined)).toBe('text');
    expect(expositionFormat('application/json')).toBe('text');
  });
});
