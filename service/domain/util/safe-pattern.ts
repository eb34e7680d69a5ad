/**
 * The one way Junction runs a regular expression that a user supplied (channel `urlPattern` and
 * `matchContentRegex`, route and rewrite `pathTransform`, the transaction and task `request.path` filter, and any
 * later one such as audit filters or alert rules). V8's RegExp backtracks, so a pattern like `^/ok/(a+)+$` can
 * stall the event loop for seconds; here patterns run on RE2 (re2js, a pure-JS port of RE2/J), whose matching time
 * is linear in the input. Patterns RE2 cannot express (backreferences, lookaround) are refused with a reason that
 * callers show as a 400 when the pattern is saved or sent.
 *
 * Patterns are written in JavaScript syntax and keep `new RegExp(pattern)`'s meaning for what people write:
 * anchors, `\d \w \s`, `\/`, classes, `{n,m}`, `(?:...)`, named groups, `.` (which, as in JavaScript, stops at
 * any line terminator, so a `.*` in an HL7 body still stays inside one segment). Pure apart from a bounded memo.
 */
import { RE2JS, RE2JSSyntaxException } from 're2js';

/** A compiled pattern: test and replace with the meaning of the JavaScript RegExp it was written as. */
export interface SafePattern {
  /** The pattern as the user wrote it (JavaScript syntax). */
  readonly source: string;
  /** True when the pattern matches somewhere in `text` (as `RegExp.prototype.test`). */
  test(text: string): boolean;
  /** `text` with the first (or every) match replaced, `$1`, `$<name>` and `$$` expanded as `String.prototype.replace` does. */
  replace(text: string, replacement: string, all: boolean): string;
}

export type PatternResult = { ok: true; pattern: SafePattern } | { ok: false; reason: string };

const LINEAR = 'Junction matches patterns in linear time';
/**
 * Above this, a pattern is refused. RE2's worst case (when its DFA gives way to the NFA) costs about program size
 * times input length: near this size that measured 1–2 s per MB of body (docs/BENCHMARKS.md), while the patterns
 * people write stay under 400 (a 20-type FHIR alternation is 385; `{1,200}` alone is 400).
 */
export const MAX_PROGRAM_SIZE = 2_000;
const CACHE_SIZE = 500;

// JavaScript's `.` stops at these; RE2's only at \n. Kept in JS syntax: translateRegExp turns \u into RE2's \x{}.
const DOT = '[^\\n\\r\\u2028\\u2029]';
// JavaScript's \s (RE2's is only [\t\n\f\r ]), as class members.
const SPACES = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/**
 * Rewrites the few constructs whose meaning differs between RegExp and RE2, or refuses the pattern when it uses one
 * RE2 cannot run. Tracks escapes and character classes so that `[(?=]` or `\.` are left alone.
 */
function toPortable(source: string): { ok: true; source: string } | { ok: false; reason: string } {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source.charAt(i);
    if (c === '\\') {
      const next = source.charAt(i + 1);
      i++;
      if (!inClass && /[1-9]/.test(next)) return { ok: false, reason: `backreferences such as \\${next} are not supported; ${LINEAR}` };
      if (!inClass && next === 'k' && source.charAt(i + 1) === '<') return { ok: false, reason: `named backreferences such as \\k<name> are not supported; ${LINEAR}` };
      if (next === 's' && inClass) {
        // JavaScript reads `[\s-x]` as \s, '-' and 'x'; after the expansion the '-' would make a range.
        out += SPACES;
        if (source.charAt(i + 1) === '-') {
          out += '\\-';
          i++;
        }
      } else if (next === 's') out += `[${SPACES}]`;
      else if (next === 'S' && !inClass) out += `[^${SPACES}]`;
      else out += c + next;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      // In JavaScript `[]` matches nothing and `[^]` anything: a `]` right after the opening closes the class.
      const empty = source.startsWith('[]', i) ? 2 : source.startsWith('[^]', i) ? 3 : 0;
      if (empty > 0) {
        out += source.slice(i, i + empty);
        i += empty - 1;
      } else {
        inClass = true;
        out += c;
      }
      continue;
    }
    if (source.startsWith('(?=', i) || source.startsWith('(?!', i)) return { ok: false, reason: `lookahead ${source.slice(i, i + 3)}...) is not supported; ${LINEAR}` };
    if (source.startsWith('(?<=', i) || source.startsWith('(?<!', i)) return { ok: false, reason: `lookbehind ${source.slice(i, i + 4)}...) is not supported; ${LINEAR}` };
    out += c === '.' ? DOT : c;
  }
  return { ok: true, source: out };
}

/**
 * re2js reports "error parsing regexp: missing closing ]: `[`" on the translated pattern. The user sees the
 * description, and the fragment only when it is a short part of what they wrote (not our translation of it).
 */
function syntaxReason(err: unknown, source: string): string {
  if (!(err instanceof RE2JSSyntaxException)) return `is not a valid regular expression: ${err instanceof Error ? err.message : String(err)}`;
  const fragment = err.getPattern() ?? '';
  const shown = fragment !== '' && fragment.length <= 40 && source.includes(fragment) ? `: ${fragment}` : '';
  return `is not a valid regular expression: ${err.getDescription()}${shown}`;
}

function wrap(source: string, re: RE2JS): SafePattern {
  return {
    source,
    test: (text) => re.test(text),
    replace: (text, replacement, all) => {
      const matcher = re.matcher(text);
      return all ? matcher.replaceAll(replacement) : matcher.replaceFirst(replacement);
    },
  };
}

/** Compiles a user's pattern for linear-time matching, or gives the reason it is refused (to show after the field name). */
export function compilePattern(source: string): PatternResult {
  const portable = toPortable(source);
  if (!portable.ok) return portable;
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(portable.source));
  } catch (err) {
    return { ok: false, reason: syntaxReason(err, source) };
  }
  const size = re.programSize();
  if (size > MAX_PROGRAM_SIZE) return { ok: false, reason: `is too complex (${size} instructions; at most ${MAX_PROGRAM_SIZE}); simplify it or split it` };
  return { ok: true, pattern: wrap(source, re) };
}

// Matching runs for every proxied request, so compiled patterns (and refusals) are memoised in two generations:
// hits in the young one cost one Map lookup; when it fills, it becomes the old one and the previous old one is
// dropped, and an old hit moves back to the young one. Patterns in use stay; at most 2 x CACHE_SIZE are held.
let young = new Map<string, PatternResult>();
let old = new Map<string, PatternResult>();

/** `compilePattern`, memoised in a bounded cache: use it on hot paths such as channel matching. */
export function cachedPattern(source: string): PatternResult {
  const hit = young.get(source);
  if (hit !== undefined) return hit;
  const result = old.get(source) ?? compilePattern(source);
  if (young.size >= CACHE_SIZE) {
    old = young;
    young = new Map();
  }
  young.set(source, result);
  return result;
}

/** The reason a pattern is refused, or null when it can be used. */
export function patternProblem(source: string): string | null {
  const result = cachedPattern(source);
  return result.ok ? null : result.reason;
}
