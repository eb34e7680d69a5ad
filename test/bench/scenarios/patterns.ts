/**
 * Patterns: what running user-supplied patterns on RE2 (domain/util/safe-pattern.ts) costs against V8's RegExp, on the
 * patterns channels really use, and what it saves on a hostile one. In-process micro-benchmark: each figure is the
 * median of several rounds, RegExp and RE2 measured in the same round so a noisy neighbour hits both alike.
 */
import { performance } from 'node:perf_hooks';
import { matchesRequest } from '../../../service/domain/channels/channel-match.js';
import type { MatchableChannel } from '../../../service/domain/channels/channel-match.js';
import { applyPathTransform } from '../../../service/domain/channels/route-request.js';
import { cachedPattern, compilePattern, MAX_PROGRAM_SIZE } from '../../../service/domain/util/safe-pattern.js';
import type { SafePattern } from '../../../service/domain/util/safe-pattern.js';

// The URL patterns of a typical installation: FHIR, HL7, XDS, DHIS2 and a few site-specific ones.
const URL_PATTERNS = [
  '^/fhir/.*$',
  '^/fhir/(Patient|Observation|Encounter)(/.*)?$',
  '^/hl7$',
  '^/xds/.*',
  '^/api/v\\d+/patients/\\d+$',
  '^/(?:dhis|dhis2)/api/(dataValueSets|events)$',
  '^/lab/[A-Za-z0-9_-]{3,12}/?$',
  '^/shr/(?<resource>[A-Z][a-z]+)/(?<id>\\d+)$',
  '^/mhd/.+/DocumentReference$',
  '^/orders/\\w+/items/[0-9]{1,6}$',
];
const PATHS = ['/fhir/Patient/123', '/hl7', '/xds/registry', '/api/v2/patients/42', '/dhis2/api/events', '/lab/ABC123', '/shr/Patient/7', '/orders/x/items/5', '/unknown/path', '/mhd/a/b/DocumentReference'];
const HL7 = `MSH|^~\\&|LAB|CLINIC|EHR|CLINIC|20240501120000||ORU^R01|MSG0001|P|2.5\r${'OBX|1|NM|GLU^Glucose||5.4|mmol/L|3.9-5.5|N|||F\r'.repeat(40)}`;
const JSON_BODY = JSON.stringify({ resourceType: 'Bundle', type: 'transaction', entry: Array.from({ length: 400 }, (_, i) => ({ resource: { resourceType: 'Observation', id: `obs-${i}`, valueQuantity: { value: i, unit: 'mmol/L' } } })) });
const BODY_PATTERNS: [string, string, string][] = [
  ['HL7 message type (2 KB body)', 'ORU\\^R0[1-4]', HL7],
  ['HL7 across a segment (2 KB body)', '^MSH.*\\|ORU\\^R01\\|', HL7],
  [`FHIR JSON, no match (${Math.round(JSON_BODY.length / 1024)} KB body)`, '"resourceType":\\s*"Patient"', JSON_BODY],
];
const HOSTILE = '^/ok/(a+)+$';

export interface PatternRow {
  regexpNs: number;
  re2Ns: number;
  ratio: number;
}

export interface PatternsResult {
  /** One request's URL check against all ten channels, through `matchesRequest` (cache lookup included). */
  urlMatch: PatternRow;
  /** Per pattern and path, compiled pattern only. */
  urlTest: PatternRow;
  pathTransform: PatternRow;
  bodies: Record<string, PatternRow>;
  compileUs: { regexp: number; re2: number };
  hostile: { path: string; regexpMs: number; re2Us: number };
  /** RE2's worst case near the program-size limit: when its DFA gives way, time is about size times input. */
  worstCase: { pattern: string; msPerMb: number };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Nanoseconds per call of `fn`, timed over `iterations` calls. */
function nsPerCall(iterations: number, fn: (i: number) => unknown): number {
  let sink = 0;
  const start = performance.now();
  for (let i = 0; i < iterations; i++) if (fn(i) !== undefined) sink++;
  const ns = ((performance.now() - start) * 1e6) / iterations;
  return sink >= 0 ? ns : 0;
}

function compare(rounds: number, iterations: number, regexp: (i: number) => unknown, re2: (i: number) => unknown): PatternRow {
  const a: number[] = [];
  const b: number[] = [];
  // One warm-up round each, so both are optimised before they are timed.
  nsPerCall(iterations, regexp);
  nsPerCall(iterations, re2);
  for (let r = 0; r < rounds; r++) {
    a.push(nsPerCall(iterations, regexp));
    b.push(nsPerCall(iterations, re2));
  }
  const regexpNs = Math.round(median(a));
  const re2Ns = Math.round(median(b));
  return { regexpNs, re2Ns, ratio: Number((re2Ns / Math.max(regexpNs, 1)).toFixed(1)) };
}

function safe(source: string): SafePattern {
  const result = compilePattern(source);
  if (!result.ok) throw new Error(`${source}: ${result.reason}`);
  return result.pattern;
}

/** Runs the comparisons; `rounds` rounds each (the median is reported). */
export function patternsScenario(rounds: number): PatternsResult {
  const channels: MatchableChannel[] = URL_PATTERNS.map((urlPattern, i) => ({ _id: `c${i}`, name: `c${i}`, type: 'http', status: 'enabled', urlPattern, methods: [], matchContentTypes: [] }));
  const regexps = URL_PATTERNS.map((p) => new RegExp(p));
  const urlMatch = compare(
    rounds,
    20_000,
    (i) => {
      const path = PATHS[i % PATHS.length] ?? '';
      return regexps.filter((re) => re.test(path)).length;
    },
    (i) => {
      const request = { path: PATHS[i % PATHS.length] ?? '', method: 'GET' };
      return channels.filter((c) => matchesRequest(c, request)).length;
    },
  );
  const safes = URL_PATTERNS.map(safe);
  const urlTest = compare(
    rounds,
    200_000,
    (i) => regexps[i % URL_PATTERNS.length]?.test(PATHS[Math.floor(i / URL_PATTERNS.length) % PATHS.length] ?? ''),
    (i) => safes[i % URL_PATTERNS.length]?.test(PATHS[Math.floor(i / URL_PATTERNS.length) % PATHS.length] ?? ''),
  );
  const transform = 's/^\\/fhir\\/(\\w+)\\/(\\d+)/\\/baseR4\\/$1\\/$2/';
  const transformRe = /^\/fhir\/(\w+)\/(\d+)/;
  const pathTransform = compare(
    rounds,
    100_000,
    () => '/fhir/Patient/123'.replace(transformRe, '/baseR4/$1/$2'),
    () => applyPathTransform('/fhir/Patient/123', transform),
  );
  const bodies: Record<string, PatternRow> = {};
  for (const [name, source, body] of BODY_PATTERNS) {
    const re = new RegExp(source);
    const compiled = safe(source);
    bodies[name] = compare(rounds, body.length > 10_000 ? 500 : 5_000, () => re.test(body), () => compiled.test(body));
  }
  const compileUs = {
    regexp: Math.round(median(Array.from({ length: rounds }, () => nsPerCall(2_000, (i) => new RegExp(`${URL_PATTERNS[i % URL_PATTERNS.length] ?? ''}|x${i}`)))) / 100) / 10,
    re2: Math.round(median(Array.from({ length: rounds }, () => nsPerCall(2_000, (i) => compilePattern(`${URL_PATTERNS[i % URL_PATTERNS.length] ?? ''}|x${i}`)))) / 100) / 10,
  };
  // 24 'a's: about half a second in RegExp here; each further 'a' doubles it.
  const hostilePath = `/ok/${'a'.repeat(24)}b`;
  let start = performance.now();
  new RegExp(HOSTILE).test(hostilePath);
  const regexpMs = Math.round(performance.now() - start);
  const hostileSafe = safe(HOSTILE);
  const re2Us = Math.round(median(Array.from({ length: rounds }, () => nsPerCall(1_000, () => hostileSafe.test(hostilePath)))) / 100) / 10;
  // Two branches of about 900 positions each: the NFA keeps up to ~1,800 threads alive per input character.
  const worstSource = '(?:x[xy]{900}[0-9]|y[xy]{900}[0-9])';
  const worst = cachedPattern(worstSource);
  if (!worst.ok) throw new Error(worst.reason);
  const input = 'xy'.repeat(50_000);
  start = performance.now();
  worst.pattern.test(input);
  const msPerMb = Math.round(((performance.now() - start) * 1_000_000) / input.length);
  return {
    urlMatch,
    urlTest,
    pathTransform,
    bodies,
    compileUs,
    hostile: { path: `/ok/ + 'a' x 24 + b`, regexpMs, re2Us },
    worstCase: { pattern: `${worstSource} (program-size limit ${MAX_PROGRAM_SIZE})`, msPerMb },
  };
}
