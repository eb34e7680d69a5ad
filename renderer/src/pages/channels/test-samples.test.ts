import { describe, expect, it } from 'vitest';
import { hl7ForSending, hl7Sample, testSample } from './test-samples';

const AT = new Date(2026, 11, 3, 9, 30, 5);
const channel = { type: 'http' as const, urlPattern: '^/fhir(/.*)?$', methods: [], matchContentTypes: [] };

describe('the test message a channel starts from', () => {
  it('is an HL7 ADT^A01 for a tcp or tls channel, sent with CR between segments', () => {
    const sample = testSample({ ...channel, type: 'tcp', urlPattern: '' }, AT, 'TEST1');
    expect(sample.hl7).toBe(true);
    expect(sample.path).toBeUndefined();
    expect(sample.body.split('\n')[0]).toBe('MSH|^~\\&|JUNCTION|CONSOLE|RECEIVER|CLINIC|20261203093005||ADT^A01|TEST1|P|2.5');
    expect(hl7ForSending(hl7Sample(AT, 'X'))).toMatch(/^MSH\|[^\n]*\rEVN\|[^\n]*\rPID\|[^\n]*\rPV1\|1\|O\r$/);
    expect(hl7ForSending('MSH|a\r\n\r\nPID|b\n')).toBe('MSH|a\rPID|b\r');
  });

  it('is a FHIR Patient posted below a FHIR prefix, and a path the pattern takes for other http channels', () => {
    const fhir = testSample(channel, AT, 'T2');
    expect(fhir).toMatchObject({ method: 'POST', path: '/fhir/Patient', contentType: 'application/fhir+json', hl7: false });
    expect(JSON.parse(fhir.body)).toMatchObject({ resourceType: 'Patient' });
    expect(testSample({ ...channel, urlPattern: '^/lab/orders$' }, AT, 'T3')).toMatchObject({ path: '/lab/orders', contentType: 'application/json' });
    expect(testSample({ ...channel, urlPattern: '^/lab/.*$', methods: ['PUT'] }, AT, 'T4')).toMatchObject({ path: '/lab/', method: 'PUT' });
    expect(testSample({ ...channel, urlPattern: '^/hl7$', matchContentTypes: ['application/hl7-v2'] }, AT, 'T5')).toMatchObject({ hl7: true, contentType: 'application/hl7-v2' });
    expect(testSample({ ...channel, urlPattern: '.*' }, AT, 'T6').path).toBe('/');
  });
});
