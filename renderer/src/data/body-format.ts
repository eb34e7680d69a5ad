/**
 * Recognises a stored body as JSON, XML or HL7 v2 (by its content type, then by its content) and lays it out for
 * reading. Pure apart from the browser's DOMParser for XML.
 */
import { parse, stringify } from 'lossless-json';

export type BodyFormat = 'json' | 'xml' | 'hl7' | 'text';

/** The format a content type names, or null when it names none of ours. */
function formatFromContentType(contentType: string | undefined): BodyFormat | null {
  if (contentType === undefined) return null;
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (/hl7-v2|x-hl7|\/hl7$|edi-hl7|er7/.test(type)) return 'hl7';
  if (type === 'application/json' || /\+json$/.test(type) || type === 'text/json') return 'json';
  if (/(^|\/|\+)xml$/.test(type)) return 'xml';
  return null;
}

/** The format the text itself looks like. */
function formatFromContent(body: string): BodyFormat {
  const text = body.trimStart();
  if (/^(MSH|BHS|FHS)\|/.test(text)) return 'hl7';
  if (text.startsWith('{') || text.startsWith('[')) {
    try {
      JSON.parse(text);
      return 'json';
    } catch {
      return 'text';
    }
  }
  if (text.startsWith('<')) return 'xml';
  return 'text';
}

/** The declared format when the content agrees with it, else what the content looks like. */
export function detectFormat(body: string, contentType: string | undefined): BodyFormat {
  const declared = formatFromContentType(contentType);
  const sniffed = formatFromContent(body);
  if (declared === null) return sniffed;
  // A label that the content contradicts (a JSON error page served as XML) would only give a failed layout.
  if (declared === 'json' && sniffed !== 'json') return sniffed;
  if (declared === 'hl7' && sniffed !== 'hl7' && !/\|/.test(body)) return sniffed;
  return declared;
}

/** JSON indented by two spaces, or null when it does not parse (a truncated body). */
export function prettyJson(body: string): string | null {
  try {
    // lossless-json keeps each number's text: JSON.parse would turn 12345678901234567890 into ...900 on screen.
    return stringify(parse(body), undefined, 2) ?? null;
  } catch {
    return null;
  }
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(text: string): string {
  return escapeText(text).replace(/"/g, '&quot;');
}

function layoutNode(node: Node, depth: number, out: string[]): void {
  const pad = '  '.repeat(depth);
  switch (node.nodeType) {
    case Node.ELEMENT_NODE: {
      const element = node as Element;
      const attributes = Array.from(element.attributes)
        .map((a) => ` ${a.name}="${escapeAttribute(a.value)}"`)
        .join('');
      const children = Array.from(element.childNodes).filter((c) => !(c.nodeType === Node.TEXT_NODE && (c.textContent ?? '').trim() === ''));
      if (children.length === 0) {
        out.push(`${pad}<${element.tagName}${attributes}/>`);
        return;
      }
      const only = children[0];
      if (children.length === 1 && only !== undefined && only.nodeType === Node.TEXT_NODE) {
        out.push(`${pad}<${element.tagName}${attributes}>${escapeText((only.textContent ?? '').trim())}</${element.tagName}>`);
        return;
      }
      out.push(`${pad}<${element.tagName}${attributes}>`);
      for (const child of children) layoutNode(child, depth + 1, out);
      out.push(`${pad}</${element.tagName}>`);
      return;
    }
    case Node.TEXT_NODE:
      out.push(`${pad}${escapeText((node.textContent ?? '').trim())}`);
      return;
    case Node.CDATA_SECTION_NODE:
      out.push(`${pad}<![CDATA[${node.textContent ?? ''}]]>`);
      return;
    case Node.COMMENT_NODE:
      out.push(`${pad}<!--${node.textContent ?? ''}-->`);
      return;
    case Node.PROCESSING_INSTRUCTION_NODE: {
      const pi = node as ProcessingInstruction;
      out.push(`${pad}<?${pi.target} ${pi.data}?>`);
      return;
    }
    default:
      return;
  }
}

/** XML indented by two spaces per level, or null when it is not well-formed (a truncated body). */
export function prettyXml(body: string): string | null {
  const doc = new DOMParser().parseFromString(body, 'application/xml');
  if (doc.getElementsByTagName('parsererror').length > 0) return null;
  const out: string[] = [];
  const declaration = /^\s*(<\?xml[^?]*\?>)/.exec(body);
  if (declaration?.[1] !== undefined) out.push(declaration[1]);
  for (const child of Array.from(doc.childNodes)) layoutNode(child, 0, out);
  return out.join('\n');
}

/** HL7 v2 segments, one per entry (segments end with a carriage return; some senders use newlines). */
export function hl7Segments(body: string): string[] {
  return body.split(/\r\n|\r|\n/).filter((segment) => segment.trim() !== '');
}
