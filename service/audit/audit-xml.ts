/**
 * Reads an audit message's XML into a small element tree, safely: saxes never reads a DTD, never expands an entity
 * beyond XML's five and character references, and never fetches anything; on top of that a DOCTYPE is refused
 * outright (a real audit never carries one, and an XML bomb or XXE needs one), the first well-formedness error ends
 * the parse, and nesting deeper than any audit message needs is refused before it can cost time or stack.
 * saxes was chosen over @xmldom/xmldom (also safe, but three times slower on a 2 KB audit, and seconds on 500 KB of
 * deep nesting) and fast-xml-parser (slower again, and it interprets DOCTYPE entities unless told not to).
 */
import { SaxesParser } from 'saxes';

/** One element: its local name, its attributes by local name, its text (CDATA included) and its child elements. */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  text: string;
  children: XmlElement[];
}

/** Deep enough for any RFC 3881 or DICOM audit (they nest four levels at most), shallow enough to refuse junk early. */
const MAX_DEPTH = 16;

class XmlRefused extends Error {}

/** The document element of `xml`, or the problem that stopped it being read (a DOCTYPE, bad XML, too deep). */
export function readXml(xml: string): { root: XmlElement } | { problem: string } {
  const parser = new SaxesParser({ position: false });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  parser.on('doctype', () => {
    throw new XmlRefused('a DOCTYPE, which an audit message never carries, was refused');
  });
  parser.on('error', (err) => {
    throw new XmlRefused(`not well-formed XML: ${err.message}`);
  });
  parser.on('opentag', (tag) => {
    if (stack.length >= MAX_DEPTH) throw new XmlRefused(`XML nested deeper than ${MAX_DEPTH} elements`);
    const attributes = localAttributes(tag.attributes as Record<string, string>);
    const element: XmlElement = { name: localName(tag.name), attributes, text: '', children: [] };
    const parent = stack.at(-1);
    if (parent === undefined) root = element;
    else parent.children.push(element);
    stack.push(element);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  const addText = (text: string): void => {
    const current = stack.at(-1);
    if (current !== undefined) current.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  try {
    parser.write(xml).close();
  } catch (err) {
    if (err instanceof XmlRefused) return { problem: err.message };
    return { problem: `not well-formed XML: ${err instanceof Error ? err.message : String(err)}` };
  }
  return root === undefined ? { problem: 'no XML element' } : { root };
}

/** Attributes by local name; the parser's own object when none is prefixed (nearly always: this is the hot path). */
function localAttributes(attributes: Record<string, string>): Record<string, string> {
  let prefixed = false;
  for (const name in attributes) if (name.includes(':')) prefixed = true;
  if (!prefixed) return attributes;
  const out: Record<string, string> = {};
  for (const name in attributes) out[localName(name)] = attributes[name] as string;
  return out;
}

/** A prefixed name's local part (`ns:AuditMessage` → `AuditMessage`): audit messages are matched by local name. */
function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}
