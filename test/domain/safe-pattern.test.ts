import { describe, expect, it } from 'vitest';
import { cachedPattern, compilePattern, MAX_PROGRAM_SIZE, patternProblem } from '../../service/domain/util/safe-pattern.js';
import type { SafePattern } from '../../service/domain/util/safe-pattern.js';

function compiled(source: string): SafePattern {
  const result = compilePattern(source);
  if (!result.ok) throw new Error(`${source} was refused: ${result.reason}`);
  return result.pattern;
}

// Channel URL patterns as OpenHIM installations write them, and path filters as people type them in the console.
const PATTERNS = [
  '^/fhir/.*$',
  '^/fhir/Patient.*$',
  '^/fhir/(Patient|Observation|Encounter)(/.*)?$',
  '^/fhir/Patient/[^/]+$',
  '^/encounters/.*$',
  '^/hl7$',
  '/xds',
  '^/api/v\\d+/patients/\\d+$',
  '^\\/api\\/v1\\/.*$',
  '^/orders/\\w+/items/[0-9]{1,6}$',
  '^/lab/[A-Za-z0-9_-]{3,12}/?$',
  '^/(?:dhis|dhis2)/api/(dataValueSets|events)$',
  '^/shr/(?<resource>[A-Z][a-z]+)/(?<id>\\d+)$',
  '^/mhd/.+/DocumentReference$',
  '^/ws/.*\\.wsdl$',
  '^/a.b$',
  '^/space\\s+here$',
  '^/nospace\\S+$',
  '^/[\\s\\d]+$',
  '^/x+?y$',
  '^/(a|ab)(c|bcd)(d*)$',
  '^/ok/(a+)+$',
  'Patient',
  '^$',
  '',
  '[^]',
  '^/\\x41\\u0042$',
  '^/tab\\t$',
  '\\bPatient\\b',
];

const PATHS = [
  '/',
  '',
  '/fhir/',
  '/fhir/Patient',
  '/fhir/Patient/123',
  '/fhir/Patient/123/_history/2',
  '/fhir/Observation',
  '/fhir/Medication',
  '/encounters/1',
  '/hl7',
  '/hl7/extra',
  '/xds/registry',
  '/api/v1/patients/42',
  '/api/v12/patients/42x',
  '/orders/abc_1/items/123456',
  '/orders/abc-1/items/1234567',
  '/lab/ABC123',
  '/lab/ab/',
  '/dhis/api/events',
  '/dhis2/api/dataValueSets',
  '/dhis3/api/events',
  '/shr/Patient/7',
  '/shr/patient/7',
  '/mhd/a/b/DocumentReference',
  '/ws/service.wsdl',
  '/ws/servicexwsdl',
  '/a.b',
  '/axb',
  '/a\nb',
  '/a\rb',
  '/a\u2028b',
  '/space   here',
  '/space\u00a0here',
  '/space\vhere',
  '/nospaceXYZ',
  '/nospace\u3000',
  '/ 1 2',
  '/xxxy',
  '/abcd',
  '/abcdd',
  '/ok/aaaa',
  '/ok/aaab',
  '/AB',
  '/tab\t',
  'a Patient here',
  'PatientX',
  '/päth/ünïcödé',
  '/emoji/\u{1f600}',
];

describe('safe patterns', () => {
  it('answer as RegExp does for realistic patterns and paths', () => {
    const mismatches: string[] = [];
    for (const source of PATTERNS) {
      const safe = compiled(source);
      const native = new RegExp(source);
      for (const path of PATHS) {
        if (safe.test(path) !== native.test(path)) mismatches.push(`${JSON.stringify(source)} on ${JSON.stringify(path)}: RegExp ${native.test(path)}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('keep JavaScript line-terminator rules for `.` in HL7 bodies (segments end with \\r)', () => {
    const body = 'MSH|^~\\&|LAB|CLINIC|||20240501||ORU^R01|1|P|2.5\rPID|||123||Smith^Jane\rOBX|1|NM|GLU||5.4';
    for (const source of ['^MSH.*ORU\\^R01', 'MSH.*Smith', 'PID.*Smith', '^PID', 'OBX\\|\\d+\\|NM']) {
      expect(compiled(source).test(body), source).toBe(new RegExp(source).test(body));
    }
  });

  it('replace as String.prototype.replace does, first or all, with $n, $<name> and $$', () => {
    const cases: [string, string, string, boolean][] = [
      ['^/fhir', '/api/fhir', '/fhir/Patient/1', false],
      ['/fhir', '/api', '/fhir/x/fhir/y', true],
      ['/fhir', '/api', '/fhir/x/fhir/y', false],
      ['^/v1/(\\w+)/(\\d+)', '/v2/$2/$1', '/v1/patient/12/history', false],
      ['(?<id>\\d+)', '[$<id>]', '/a/12/b/34', true],
      ['x', '$$', '/x/x', true],
      ['a*', '-', 'baaac', true],
      ['', '/', 'ab', true],
      ['nomatch', 'y', '/path', true],
    ];
    for (const [source, to, path, all] of cases) {
      const native = new RegExp(source, all ? 'g' : '');
      expect(compiled(source).replace(path, to, all), `${source} -> ${to} on ${path}`).toBe(path.replace(native, to));
    }
  });

  it('refuse backreferences and lookaround, saying why', () => {
    expect(patternProblem('^/(a)\\1$')).toMatch(/^backreferences such as \\1 are not supported; Junction matches patterns in linear time$/);
    expect(patternProblem('^(?<x>a)\\k<x>$')).toMatch(/^named backreferences .* not supported/);
    expect(patternProblem('^/x(?=y)')).toMatch(/^lookahead \(\?=\.\.\.\) is not supported; Junction matches patterns in linear time$/);
    expect(patternProblem('^/x(?!y)')).toMatch(/^lookahead \(\?!/);
    expect(patternProblem('(?<=/api)/x')).toMatch(/^lookbehind \(\?<=\.\.\.\) is not supported/);
    expect(patternProblem('(?<!/api)/x')).toMatch(/^lookbehind \(\?<!/);
  });

  it('leave look-alikes inside classes and escapes alone', () => {
    expect(compiled('^[(?=]+$').test('(?=')).toBe(true);
    expect(compiled('^\\(\\?=$').test('(?=')).toBe(true);
    expect(compiled('^[\\s-x]+$').test(' -x')).toBe(true);
    expect(compiled('^[]a]$').test('a]')).toBe(new RegExp('^[]a]$').test('a]'));
  });

  it('refuse what does not compile, and what is too large to run cheaply', () => {
    expect(patternProblem('([a-z')).toMatch(/^is not a valid regular expression: missing closing \]/);
    expect(patternProblem('a{2,1}')).toMatch(/^is not a valid regular expression/);
    expect(patternProblem('\\')).toMatch(/^is not a valid regular expression/);
    expect(patternProblem('(a{1000}){1000}')).toMatch(/^is not a valid regular expression/);
    expect(patternProblem('[a-z]{900}[0-9]{900}[a-z]{900}[0-9]{900}[a-z]{900}[0-9]{900}')).toMatch(new RegExp(`^is too complex \\(\\d+ instructions; at most ${MAX_PROGRAM_SIZE}\\)`));
  });

  it('run a pattern that backtracks exponentially in RegExp', () => {
    const path = `/ok/${'a'.repeat(5000)}b`;
    expect(compiled('^/ok/(a+)+$').test(path)).toBe(false);
    expect(compiled('^(\\w+\\s?)*$').test(`${'word '.repeat(2000)}!`)).toBe(false);
  });

  it('memoise compilations, refusals included', () => {
    const first = cachedPattern('^/cached/\\d+$');
    expect(cachedPattern('^/cached/\\d+$')).toBe(first);
    expect(cachedPattern('(?=x)')).toBe(cachedPattern('(?=x)'));
  });
});
