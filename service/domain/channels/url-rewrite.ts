/**
 * URL rewriting of responses (COMPAT.md): URLs that point at a downstream host are turned into URLs on Junction,
 * in the Location header and in `href`, `src` and `fullUrl` values of JSON and XML bodies.
 */
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';

export interface RewriteRule {
  fromHost: string;
  fromPort: number;
  toHost: string;
  toPort: number;
  /** Protocol of the rewritten URL; Junction's https port gives https. */
  toProtocol: 'http' | 'https';
  /** Applied to the path of a rewritten URL. */
  transformPath?: (path: string) => string;
}

const URL_KEYS = new Set(['href', 'src', 'fullUrl']);

function defaultPort(protocol: string): number {
  return protocol === 'https:' ? 443 : 80;
}

/** Rewrites one absolute URL by the first rule whose host and port it points at; other values come back unchanged. */
export function rewriteUrl(value: string, rules: readonly RewriteRule[]): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return value;
  const port = url.port === '' ? defaultPort(url.protocol) : Number(url.port);
  const rule = rules.find((r) => r.fromHost.toLowerCase() === url.hostname.toLowerCase() && r.fromPort === port);
  if (rule === undefined) return value;
  url.protocol = `${rule.toProtocol}:`;
  url.hostname = rule.toHost;
  url.port = rule.toPort === defaultPort(url.protocol) ? '' : String(rule.toPort);
  if (rule.transformPath !== undefined) url.pathname = rule.transformPath(url.pathname);
  return url.toString();
}

function rewriteJsonValue(value: unknown, rules: readonly RewriteRule[]): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteJsonValue(v, rules));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = URL_KEYS.has(key) && typeof v === 'string' ? rewriteUrl(v, rules) : rewriteJsonValue(v, rules);
  }
  return out;
}

/** Rewrites a JSON body; text that is not JSON comes back unchanged. */
export function rewriteJsonBody(text: string, rules: readonly RewriteRule[]): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  return JSON.stringify(rewriteJsonValue(parsed, rules));
}

function rewriteXmlNode(node: Element, rules: readonly RewriteRule[]): boolean {
  let changed = false;
  for (const name of ['href', 'src']) {
    const value = node.getAttribute(name);
    if (value !== null) {
      const next = rewriteUrl(value, rules);
      if (next !== value) {
        node.setAttribute(name, next);
        changed = true;
      }
    }
  }
  // FHIR XML carries URLs as <fullUrl value="..."/>.
  if (node.localName === 'fullUrl' && node.getAttribute('value') !== null) {
    const value = node.getAttribute('value') ?? '';
    const next = rewriteUrl(value, rules);
    if (next !== value) {
      node.setAttribute('value', next);
      changed = true;
    }
  }
  for (let child = node.firstChild; child !== null; child = child.nextSibling) {
    if (child.nodeType === 1 && rewriteXmlNode(child as Element, rules)) changed = true;
  }
  return changed;
}

/** Rewrites an XML body; malformed XML, or XML with nothing to rewrite, comes back byte-for-byte unchanged. */
export function rewriteXmlBody(text: string, rules: readonly RewriteRule[]): string {
  try {
    const parser = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    });
    const doc = parser.parseFromString(text, 'text/xml');
    const root = doc.documentElement;
    if (root === null || !rewriteXmlNode(root as unknown as Element, rules)) return text;
    return new XMLSerializer().serializeToString(doc);
  } catch {
    return text;
  }
}

/** Rewrites a body by its content type (JSON or XML types); other bodies are returned unchanged. */
export function rewriteBody(text: string, contentType: string | undefined, rules: readonly RewriteRule[]): string {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (rules.length === 0) return text;
  if (type === 'application/json' || type.endsWith('+json')) return rewriteJsonBody(text, rules);
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return rewriteXmlBody(text, rules);
  return text;
}
