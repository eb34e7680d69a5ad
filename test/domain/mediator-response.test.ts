import { describe, expect, it } from 'vitest';
import { isStructuredResponse, parseMediatorResponse, reportsError } from '../../service/domain/channels/mediator-response.js';

const base = { 'x-mediator-urn': 'urn:m', response: { status: 200 } };
const parse = (doc: unknown) => parseMediatorResponse(typeof doc === 'string' ? doc : JSON.stringify(doc));

describe('isStructuredResponse', () => {
  it('recognises both structured content types, with parameters and in any case', () => {
    expect(isStructuredResponse('application/json+service')).toBe(true);
    expect(isStructuredResponse('Application/JSON+OpenHIM; charset=utf-8')).toBe(true);
    expect(isStructuredResponse(['application/json+openhim'])).toBe(true);
    expect(isStructuredResponse('application/json')).toBe(false);
    expect(isStructuredResponse(undefined)).toBe(false);
  });
});

describe('parseMediatorResponse', () => {
  it('fills defaults for a minimal response', () => {
    expect(parse(base)).toEqual({ ok: true, value: { urn: 'urn:m', response: { status: 200, headers: {}, body: '' }, orchestrations: [], properties: {}, skippedProperties: [] } });
  });

  it('keeps client headers sendable: framing headers dropped, values as text', () => {
    const result = parse({ ...base, response: { status: 200, headers: { 'Content-Type': 'text/plain', 'Content-Length': '5', 'Transfer-Encoding': 'chunked', 'X-Count': 2, 'X-List': ['a', 'b'] }, body: { a: 1 } } });
    expect(result.ok && result.value.response).toEqual({ status: 200, headers: { 'content-type': 'text/plain', 'x-count': '2', 'x-list': 'a, b' }, body: '{"a":1}' });
  });

  it('turns properties into text and leaves out the ones that cannot be stored', () => {
    const result = parse({ ...base, properties: { a: 1, b: true, 'c.d': 'x', $e: 'y', f: { g: 1 }, h: null } });
    expect(result.ok && [result.value.properties, result.value.skippedProperties]).toEqual([{ a: '1', b: 'true' }, ['c.d', '$e', 'f']]);
  });

  it('reads orchestrations with their errors, and reports errors from anywhere', () => {
    const result = parse({ ...base, orchestrations: [{ name: 'o', request: { method: 'post', port: '8080', timestamp: 0 }, error: 'boom' }] });
    expect(result.ok && result.value.orchestrations).toEqual([{ name: 'o', request: { path: '', querystring: '', method: 'POST', headers: {}, port: 8080, timestamp: new Date(0) }, error: { message: 'boom' } }]);
    expect(result.ok && reportsError(result.value)).toBe(true);
    const clean = parse(base);
    expect(clean.ok && reportsError(clean.value)).toBe(false);
  });

  it('names the field of a malformed response', () => {
    const problems: [unknown, string][] = [
      ['[1]', 'the body must be a JSON object'],
      [{ response: { status: 200 } }, 'x-mediator-urn is required'],
      [{ ...base, response: { status: '200' } }, 'response.status must be an integer from 100 to 599'],
      [{ ...base, response: { status: 200, headers: { 'x-a': 'line\nbreak' } } }, 'response.headers.x-a has characters a header value cannot carry'],
      [{ ...base, response: { status: 200, body: 5 } }, 'response.body must be a string'],
      [{ ...base, orchestrations: {} }, 'orchestrations must be an array'],
      [{ ...base, orchestrations: [{ name: 'o' }] }, 'orchestrations.0.request must be an object'],
      [{ ...base, orchestrations: [{ name: 'o', request: {}, response: { status: 'ok' } }] }, 'orchestrations.0.response.status must be an integer'],
      [{ ...base, error: { stack: 'x' } }, 'error.message must be a string'],
      [{ ...base, properties: [] }, 'properties must be an object'],
    ];
    for (const [doc, message] of problems) {
      const result = parse(doc);
      expect(result.ok, message).toBe(false);
      if (!result.ok) expect(result.problem).toContain(message);
    }
  });
});
