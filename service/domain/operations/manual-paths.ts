/**
 * Which files of the manual (`docs/`) the service serves at `/docs`, and where a link inside a page points once the
 * page is served (issue 39). Pure: `api/manual.ts` reads and answers what this decides.
 *
 * A page's address is its file's path under `docs/` (`docs/admin/channels.md` is `/docs/admin/channels.md`), so the
 * links the Markdown already holds keep working after a plain prefix, and GitHub's heading anchors with them.
 * Only Markdown pages and images are served, and only by names made of ordinary characters: no `..`, no hidden
 * files, no backslashes or encoded separators. A name that fails here is answered as an unknown page.
 */
import { posix } from 'node:path';

/** Where the manual is served on the management port. */
export const MANUAL_PREFIX = '/docs';

/** The images a page may show, by extension, with the type they are served as. SVG is left out: it can carry script. */
export const MANUAL_IMAGE_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/** The manual's front page, served at `/docs` and `/docs/`. */
export const MANUAL_INDEX = 'index.md';

/** A file of the manual a request may have: its path under `docs/` (with `/` separators) and what it is. */
export interface ManualFile {
  file: string;
  kind: 'page' | 'image';
}

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/**
 * The file a path under `/docs/` names (the part after the prefix, already percent-decoded), or null when it names
 * nothing the manual serves. The empty path is the front page.
 */
export function manualFile(path: string): ManualFile | null {
  if (path === '') return { file: MANUAL_INDEX, kind: 'page' };
  if (path.length > 300) return null;
  const segments = path.split('/');
  if (!segments.every((segment) => SEGMENT.test(segment) && !segment.includes('..'))) return null;
  const extension = posix.extname(path).toLowerCase();
  if (extension === '.md') return { file: path, kind: 'page' };
  if (MANUAL_IMAGE_TYPES[extension] !== undefined) return { file: path, kind: 'image' };
  return null;
}

/** What a link in a page becomes when the page is served. */
export type ManualLink =
  /** Left as written: another site, a mail address, an anchor in the same page. */
  | { kind: 'keep' }
  /** A file of the manual: its address under `/docs/`, with the anchor the link named. */
  | { kind: 'manual'; href: string }
  /** A file of the repository outside `docs/` (the README, the sources): no address serves it, so no link is made. */
  | { kind: 'outside'; path: string };

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * A link written in the page at `fromFile` (its path under `docs/`), as the served page should have it. Relative
 * links are resolved against the page's folder, as GitHub resolves them; a link that climbs out of `docs/` names a
 * file of the repository, which is not served.
 */
export function manualLink(fromFile: string, href: string): ManualLink {
  if (href === '' || href.startsWith('#') || href.startsWith('//') || SCHEME.test(href)) return { kind: 'keep' };
  const hashAt = href.indexOf('#');
  const target = hashAt < 0 ? href : href.slice(0, hashAt);
  const anchor = hashAt < 0 ? '' : href.slice(hashAt);
  const queryless = target.split('?')[0] as string;
  const resolved = queryless.startsWith('/') ? posix.normalize(queryless.slice(1)) : posix.normalize(posix.join(posix.dirname(fromFile), queryless));
  if (resolved === '..' || resolved.startsWith('../')) return { kind: 'outside', path: posix.normalize(posix.join('docs', resolved)) };
  const path = resolved === '.' ? '' : resolved;
  return { kind: 'manual', href: `${MANUAL_PREFIX}/${path === MANUAL_INDEX ? '' : encodeURI(path)}${anchor}` };
}
