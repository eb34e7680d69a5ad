import { describe, expect, it } from 'vitest';
import { rewriteBody, rewriteUrl } from '../../service/domain/channels/url-rewrite.js';
import type { RewriteRule } from '../../service/domain/channels/url-rewrite.js';

const rules: RewriteRule[] = [
  { fromHost: 'fhir.internal', fromPort: 8080, toHost: 'junction.clinic', toPort: 5000, toProtocol: 'https' },
  { fromHost: 'lab.internal', fromPort: 80, toHost: 'junction.clinic', toPort: 5001, toProtocol: 'http', transformPath: (p) => p.replace(/^\//, '/lab/') },
];

describe('URL rewriting', () => {
  it('rewrites URLs pointing at a rule host and port, and leaves others alone', () => {
    expect(rewriteUrl('http://fhir.internal:8080/fhir/Patient/1?x=1', rules)).toBe('https://junction.clinic:5000/fhir/Patient/1?x=1');
    expect(rewriteUrl('http://lab.internal/results/7', rules)).toBe('http://junction.clinic:5001/lab/results/7');
    expect(rewriteUrl('http://fhir.internal:9090/x', rules)).toBe('http://fhir.internal:9090/x');
    expect(rewriteUrl('/relative/path', rules)).toBe('/relative/path');
    expect(rewriteUrl('urn:uuid:1234', rules)).toBe('urn:uuid:1234');
  });

  it('rewrites href, src and fullUrl in JSON bodies, at any depth', () => {
    const body = JSON.stringify({
      resourceType: 'Bundle',
      link: [{ relation: 'self', href: 'http://fhir.internal:8080/fhir/Patient' }],
      entry: [{ fullUrl: 'http://fhir.internal:8080/fhir/Patient/1', resource: { note: 'http://fhir.internal:8080/untouched' } }],
    });
    const out = JSON.parse(rewriteBody(body, 'application/fhir+json; charset=utf-8', rules)) as {
      link: { href: string }[];
      entry: { fullUrl: string; resource: { note: string } }[];
    };
    expect(out.link[0]?.href).toBe('https://junction.clinic:5000/fhir/Patient');
    expect(out.entry[0]?.fullUrl).toBe('https://junction.clinic:5000/fhir/Patient/1');
    expect(out.entry[0]?.resource.note).toBe('http://fhir.internal:8080/untouched');
  });

  it('rewrites href/src attributes and FHIR fullUrl elements in XML bodies', () => {
    const xml = '<Bundle><fullUrl value="http://fhir.internal:8080/fhir/Patient/1"/><a href="http://lab.internal/r/1">r</a><img src="http://other/x"/></Bundle>';
    const out = rewriteBody(xml, 'application/fhir+xml', rules);
    expect(out).toContain('value="https://junction.clinic:5000/fhir/Patient/1"');
    expect(out).toContain('href="http://junction.clinic:5001/lab/r/1"');
    expect(out).toContain('src="http://other/x"');
  });

  it('leaves bodies it cannot parse, or of other types, unchanged', () => {
    expect(rewriteBody('{not json', 'application/json', rules)).toBe('{not json');
    expect(rewriteBody('<a href="http://fhir.internal:8080/">', 'text/xml', rules)).toBe('<a href="http://fhir.internal:8080/">');
    expect(rewriteBody('http://fhir.internal:8080/x', 'text/plain', rules)).toBe('http://fhir.internal:8080/x');
  });
});
