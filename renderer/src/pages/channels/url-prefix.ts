/**
 * A channel's URL pattern written as a path prefix (issue 36): `/fhir` is stored as the anchored, escaped regular
 * expression `^/fhir(/.*)?$` (the path itself, or it followed by `/` and anything), which OpenHIM and Junction
 * match as any other pattern; a stored pattern of exactly that form is shown back as its prefix.
 */

const SPECIAL = /[\\^$.*+?()[\]{}|]/g;

/** The URL pattern of a path prefix; a missing leading `/` is added, trailing ones dropped. Empty for an empty prefix. */
export function prefixPattern(prefix: string): string {
  const trimmed = prefix.trim();
  if (trimmed === '') return '';
  const base = (trimmed.startsWith('/') ? trimmed : `/${trimmed}`).replace(/\/+$/, '');
  return base === '' ? '^/.*$' : `^${base.replace(SPECIAL, '\\$&')}(/.*)?$`;
}

/** The prefix a URL pattern was made from, or null when it is another regular expression. */
export function prefixOf(pattern: string): string | null {
  if (pattern === '^/.*$') return '/';
  const found = /^\^(.+)\(\/\.\*\)\?\$$/.exec(pattern);
  if (found === null) return null;
  let literal = '';
  const escaped = found[1] ?? '';
  for (let i = 0; i < escaped.length; i++) {
    const c = escaped[i] ?? '';
    if (c === '\\') {
      const next = escaped[i + 1] ?? '';
      if (!'\\^$.*+?()[]{}|'.includes(next) || next === '') return null;
      literal += next;
      i++;
    } else if ('^$.*+?()[]{}|'.includes(c)) {
      return null;
    } else {
      literal += c;
    }
  }
  // Only what prefixPattern itself writes reads back as a prefix, so saving it again changes nothing.
  return literal.startsWith('/') && prefixPattern(literal) === pattern ? literal : null;
}
