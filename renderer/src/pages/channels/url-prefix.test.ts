import { describe, expect, it } from 'vitest';
import { prefixOf, prefixPattern } from './url-prefix';

/** Whether `pattern` takes `path`, as JavaScript (and so OpenHIM, and Junction, which keeps its meaning) matches it. */
function matches(pattern: string, path: string): boolean {
  return new RegExp(pattern).test(path);
}

describe('a URL pattern written as a path prefix', () => {
  it('is anchored and escaped, and matches the path and what lies below it only', () => {
    expect(prefixPattern('/fhir')).toBe('^/fhir(/.*)?$');
    expect(prefixPattern('fhir/')).toBe('^/fhir(/.*)?$');
    expect(prefixPattern('/lab.v2+x')).toBe('^/lab\\.v2\\+x(/.*)?$');
    expect(prefixPattern('/')).toBe('^/.*$');
    expect(prefixPattern('  ')).toBe('');
    const pattern = prefixPattern('/fhir');
    for (const path of ['/fhir', '/fhir/', '/fhir/Patient/1']) expect(matches(pattern, path), path).toBe(true);
    for (const path of ['/fhirx', '/other/fhir', '/FHIR']) expect(matches(pattern, path), path).toBe(false);
    expect(matches(prefixPattern('/lab.v2'), '/labXv2')).toBe(false);
  });

  it('is shown back as its prefix, and any other pattern is not', () => {
    for (const prefix of ['/fhir', '/lab.v2+x', '/a(b)', '/', '/ward/beds']) expect(prefixOf(prefixPattern(prefix))).toBe(prefix);
    for (const pattern of ['^/fhir/.*$', '^/fhir$', '/fhir(/.*)?$', '^/fh.r(/.*)?$', '^fhir(/.*)?$', '^/fhir(/.*)?', '', '^/a\\d(/.*)?$']) expect(prefixOf(pattern), pattern).toBeNull();
  });
});
