import { describe, expect, it } from 'vitest';
import { authorise, byPriority, findChannel, matchesBody, matchesRequest } from '../../service/domain/channels/channel-match.js';
import type { MatchableChannel } from '../../service/domain/channels/channel-match.js';

function channel(overrides: Partial<MatchableChannel> & { _id: string }): MatchableChannel {
  return { name: overrides._id, type: 'http', status: 'enabled', urlPattern: '^/.*$', methods: [], matchContentTypes: [], ...overrides };
}

const get = (path: string, extra: { method?: string; contentType?: string } = {}) => ({ path, method: extra.method ?? 'GET', contentType: extra.contentType });

describe('channel matching', () => {
  it('orders by priority, 1 first, unprioritised last, ties keep their order', () => {
    const order = byPriority([{ priority: undefined, id: 'a' }, { priority: 2, id: 'b' }, { priority: 1, id: 'c' }, { priority: 2, id: 'd' }]);
    expect(order.map((c) => c.id)).toEqual(['c', 'b', 'd', 'a']);
  });

  it('picks the matching channel with the lowest priority number', () => {
    const channels = [
      channel({ _id: 'low', urlPattern: '^/fhir/.*$', priority: 5 }),
      channel({ _id: 'high', urlPattern: '^/fhir/Patient.*$', priority: 1 }),
      channel({ _id: 'other', urlPattern: '^/hl7$' }),
    ];
    expect(findChannel(channels, get('/fhir/Patient/1'))?._id).toBe('high');
    expect(findChannel(channels, get('/fhir/Observation'))?._id).toBe('low');
    expect(findChannel(channels, get('/nothing'))).toBeUndefined();
  });

  it('matches URL and content patterns in linear time, and never matches a stored pattern that is refused', () => {
    const hostile = channel({ _id: 'x', urlPattern: '^/x/(a+)+$', matchContentRegex: '^(\\w+\\s?)*$' });
    // Short inputs: test/api/regex-safety.test.ts shows the long ones no longer stall the service.
    expect(matchesRequest(hostile, get(`/x/${'a'.repeat(8)}b`))).toBe(false);
    expect(matchesRequest(hostile, get('/x/aaa'))).toBe(true);
    expect(matchesBody(hostile, `${'word '.repeat(8)}!`)).toBe(false);
    expect(matchesBody(hostile, 'word word')).toBe(true);
    expect(matchesRequest(channel({ _id: 'old', urlPattern: '^/(?=a)' }), get('/a'))).toBe(false);
    expect(matchesBody(channel({ _id: 'old', matchContentRegex: '(a)\\1' }), 'aa')).toBe(false);
  });

  it('never matches disabled, deleted or non-http channels', () => {
    for (const status of ['disabled', 'deleted'] as const) expect(matchesRequest(channel({ _id: 'x', status }), get('/a'))).toBe(false);
    expect(matchesRequest(channel({ _id: 'x', type: 'tcp' }), get('/a'))).toBe(false);
  });

  it('treats an empty method list as all methods (an OpenHIM defect fixed) and compares case-insensitively', () => {
    expect(matchesRequest(channel({ _id: 'x' }), get('/a', { method: 'DELETE' }))).toBe(true);
    expect(matchesRequest(channel({ _id: 'x', methods: ['POST'] }), get('/a', { method: 'post' }))).toBe(true);
    expect(matchesRequest(channel({ _id: 'x', methods: ['POST'] }), get('/a'))).toBe(false);
  });

  it('matches content types without their parameters', () => {
    const c = channel({ _id: 'x', matchContentTypes: ['application/fhir+json'] });
    expect(matchesRequest(c, get('/a', { contentType: 'application/fhir+json; charset=utf-8' }))).toBe(true);
    expect(matchesRequest(c, get('/a', { contentType: 'text/xml' }))).toBe(false);
    expect(matchesRequest(c, get('/a'))).toBe(false);
  });

  it('matches bodies by regex, XPath + value and JSON path + value', () => {
    const regex = channel({ _id: 'r', matchContentRegex: 'ADT\\^A0[1-4]' });
    expect(matchesBody(regex, 'MSH|^~\\&|...|ADT^A04|')).toBe(true);
    expect(matchesBody(regex, 'MSH|ORU^R01')).toBe(false);

    const xml = channel({ _id: 'x', matchContentXpath: 'string(/Patient/gender/@value)', matchContentValue: 'female' });
    expect(matchesBody(xml, '<Patient><gender value="female"/></Patient>')).toBe(true);
    expect(matchesBody(xml, '<Patient><gender value="male"/></Patient>')).toBe(false);
    expect(matchesBody(xml, '<Patient><unclosed>')).toBe(false);
    const xmlNode = channel({ _id: 'x', matchContentXpath: '/msg/type', matchContentValue: 'lab' });
    expect(matchesBody(xmlNode, '<msg><type>lab</type></msg>')).toBe(true);

    const json = channel({ _id: 'j', matchContentJson: 'resource.resourceType', matchContentValue: 'Patient' });
    expect(matchesBody(json, '{"resource":{"resourceType":"Patient"}}')).toBe(true);
    expect(matchesBody(json, '{"resource":{"resourceType":"Encounter"}}')).toBe(false);
    expect(matchesBody(json, 'not json')).toBe(false);
  });

  it('only chooses a body-matching channel when the body matches, falling through to the next', () => {
    const channels = [
      channel({ _id: 'patients', priority: 1, matchContentJson: 'resourceType', matchContentValue: 'Patient' }),
      channel({ _id: 'fallback', priority: 2 }),
    ];
    expect(findChannel(channels, get('/a'), '{"resourceType":"Patient"}')?._id).toBe('patients');
    expect(findChannel(channels, get('/a'), '{"resourceType":"Encounter"}')?._id).toBe('fallback');
    expect(findChannel(channels, get('/a'))?._id).toBe('fallback');
  });
});

describe('channel authorisation', () => {
  const client = { clientID: 'lab', roles: ['labs', 'fhir'] };
  const base = { authType: 'private' as const, allow: [] as string[], whitelist: [] as string[] };

  it('admits anyone on a public channel', () => {
    expect(authorise({ ...base, authType: 'public' }, null, '10.0.0.1')).toBe(true);
  });

  it('admits a private channel caller by client id, by role, or by *', () => {
    expect(authorise({ ...base, allow: ['lab'] }, client, '10.0.0.1')).toBe(true);
    expect(authorise({ ...base, allow: ['fhir'] }, client, '10.0.0.1')).toBe(true);
    expect(authorise({ ...base, allow: ['*'] }, client, '10.0.0.1')).toBe(true);
    expect(authorise({ ...base, allow: ['pharmacy'] }, client, '10.0.0.1')).toBe(false);
    expect(authorise({ ...base, allow: ['*'] }, null, '10.0.0.1')).toBe(false);
  });

  it('admits whitelisted addresses without a client, including IPv4-mapped IPv6 forms', () => {
    expect(authorise({ ...base, whitelist: ['10.0.0.9'] }, null, '::ffff:10.0.0.9')).toBe(true);
    expect(authorise({ ...base, whitelist: ['10.0.0.9'] }, null, '10.0.0.8')).toBe(false);
  });
});
