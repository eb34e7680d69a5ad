/** Body formats: which layout a stored body gets, and the JSON, XML and HL7 v2 layouts themselves. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vi } from 'vitest';
import { DOMParser as XmlDomParser, Node as XmlNode, onWarningStopParsing } from '@xmldom/xmldom';
import { detectFormat, hl7Segments, prettyJson, prettyXml } from './body-format';

/**
 * The browser's DOMParser, from @xmldom/xmldom (the tests run in Node), answering as a browser does where xmldom
 * differs: a document that is not well-formed gives a document holding a <parsererror> element instead of an
 * exception, and the XML declaration is not a node. The console's own parser runs in Chromium in the e2e tests.
 */
class BrowserDOMParser {
  parseFromString(text: string, type: string): unknown {
    const parser = new XmlDomParser({ onError: onWarningStopParsing });
    try {
      const doc = parser.parseFromString(text, type);
      for (const child of Array.from(doc.childNodes)) {
        if (child.nodeType === XmlNode.PROCESSING_INSTRUCTION_NODE && child.nodeName === 'xml') doc.removeChild(child);
      }
      return doc;
    } catch {
      return parser.parseFromString('<parsererror>not well-formed</parsererror>', 'application/xml');
    }
  }
}

beforeAll(() => {
  vi.stubGlobal('DOMParser', BrowserDOMParser);
  vi.stubGlobal('Node', XmlNode);
});

afterAll(() => {
  vi.unstubAllGlobals();
});

const JSON_BODY = '{"patient":{"id":"123","name":"Thandi"},"results":[{"code":"HBA1C","value":6.1}]}';
const XML_BODY = '<?xml version="1.0" encoding="UTF-8"?><order kind="lab"><patient id="123">Thandi</patient><test code="HBA1C"/></order>';
const HL7_BODY = 'MSH|^~\\&|LAB|CLINIC|EHR|CLINIC|20240501101500||ORU^R01|MSG0001|P|2.5\rPID|1||123^^^CLINIC||Nkosi^Thandi\rOBX|1|NM|HBA1C^Haemoglobin A1c||6.1|%|||||F\r';
/** Bytes of a PNG header and a few control characters, as a binary body reads once decoded as text. */
const BINARY_BODY = '\uFFFDPNG\r\n\u001A\n\u0000\u0000\u0000\rIHDR\u0000\u0000\u0001\u0000';

describe('detectFormat', () => {
  it('follows the content type when the body agrees with it', () => {
    expect(detectFormat(JSON_BODY, 'application/json')).toBe('json');
    expect(detectFormat(JSON_BODY, 'application/fhir+json; charset=utf-8')).toBe('json');
    expect(detectFormat(JSON_BODY, 'text/json')).toBe('json');
    expect(detectFormat(XML_BODY, 'application/xml')).toBe('xml');
    expect(detectFormat(XML_BODY, 'Text/XML; charset=UTF-8')).toBe('xml');
    expect(detectFormat(XML_BODY, 'application/soap+xml')).toBe('xml');
    for (const type of ['x-application/hl7-v2+er7', 'application/hl7-v2', 'application/x-hl7', 'application/edi-hl7', 'text/hl7']) expect(detectFormat(HL7_BODY, type), type).toBe('hl7');
  });

  it('recognises the body by its content when there is no content type or one of no format of ours', () => {
    for (const type of [undefined, 'text/plain', 'application/octet-stream']) {
      expect(detectFormat(`  \n${JSON_BODY}`, type)).toBe('json');
      expect(detectFormat('[1,2,3]', type)).toBe('json');
      expect(detectFormat(XML_BODY, type)).toBe('xml');
      expect(detectFormat(HL7_BODY, type)).toBe('hl7');
      expect(detectFormat('BHS|^~\\&|LAB\rMSH|^~\\&|LAB', type)).toBe('hl7');
      expect(detectFormat('plain words', type)).toBe('text');
    }
  });

  it('shows a body labelled JSON that is not JSON (an HTML error page, a cut body) as what it is', () => {
    expect(detectFormat('<html><body>502 Bad Gateway</body></html>', 'application/json')).toBe('xml');
    expect(detectFormat('Service unavailable', 'application/json')).toBe('text');
    expect(detectFormat(JSON_BODY.slice(0, 40), 'application/json')).toBe('text');
  });

  it('keeps the XML label on a cut XML body, so the view can say it could not be laid out', () => {
    expect(detectFormat(XML_BODY.slice(0, 60), 'application/xml')).toBe('xml');
  });

  it('keeps the HL7 label on a body with field separators, and drops it on one without', () => {
    expect(detectFormat('PID|1||123', 'application/hl7-v2')).toBe('hl7');
    expect(detectFormat(JSON_BODY, 'application/hl7-v2')).toBe('json');
  });

  it('shows a binary body as text, whatever it is labelled', () => {
    for (const type of [undefined, 'image/png', 'application/octet-stream', 'application/json']) expect(detectFormat(BINARY_BODY, type), String(type)).toBe('text');
  });
});

describe('prettyJson', () => {
  it('indents by two spaces', () => {
    expect(prettyJson('{"a":[1,{"b":null}],"c":"x"}')).toBe('{\n  "a": [\n    1,\n    {\n      "b": null\n    }\n  ],\n  "c": "x"\n}');
  });

  it('keeps text, escapes and unicode as sent', () => {
    expect(prettyJson('{"name":"Nkosi \\"T\\"","city":"Zürich"}')).toBe('{\n  "name": "Nkosi \\"T\\"",\n  "city": "Zürich"\n}');
  });

  it('gives null for a cut or a binary body', () => {
    expect(prettyJson(JSON_BODY.slice(0, 40))).toBeNull();
    expect(prettyJson(BINARY_BODY)).toBeNull();
    expect(prettyJson('')).toBeNull();
  });

  it('shows numbers exactly as sent, beyond double precision too', () => {
    expect(prettyJson('{"id":12345678901234567890,"dose":1.50}')).toBe('{\n  "id": 12345678901234567890,\n  "dose": 1.50\n}');
  });
});

describe('prettyXml', () => {
  it('indents elements by two spaces, keeps the declaration, and puts single texts inline', () => {
    expect(prettyXml(XML_BODY)).toBe(
      ['<?xml version="1.0" encoding="UTF-8"?>', '<order kind="lab">', '  <patient id="123">Thandi</patient>', '  <test code="HBA1C"/>', '</order>'].join('\n'),
    );
  });

  it('drops whitespace between elements and re-indents an already indented document', () => {
    expect(prettyXml('<a>\n      <b>1</b>\n\n   <c/>\n</a>')).toBe('<a>\n  <b>1</b>\n  <c/>\n</a>');
  });

  it('escapes text and attribute values again', () => {
    expect(prettyXml('<a note="&quot;x&quot; &amp; &lt;y&gt;">1 &lt; 2 &amp; 3 &gt; 2</a>')).toBe('<a note="&quot;x&quot; &amp; &lt;y&gt;">1 &lt; 2 &amp; 3 &gt; 2</a>');
  });

  it('keeps comments, CDATA, processing instructions, prefixes and namespaces', () => {
    const body = '<!-- lab --><s:Envelope xmlns:s="urn:s"><s:Body><![CDATA[a<b]]><?render fast?></s:Body></s:Envelope>';
    expect(prettyXml(body)).toBe(['<!-- lab -->', '<s:Envelope xmlns:s="urn:s">', '  <s:Body>', '    <![CDATA[a<b]]>', '    <?render fast?>', '  </s:Body>', '</s:Envelope>'].join('\n'));
  });

  it('lays out mixed text and elements one per line', () => {
    expect(prettyXml('<p>Result: <b>6.1</b> percent</p>')).toBe('<p>\n  Result:\n  <b>6.1</b>\n  percent\n</p>');
  });

  it('gives null for a cut, a non-XML or a binary body', () => {
    expect(prettyXml(XML_BODY.slice(0, 60))).toBeNull();
    expect(prettyXml('<a><b></a>')).toBeNull();
    expect(prettyXml('not xml')).toBeNull();
    expect(prettyXml(BINARY_BODY)).toBeNull();
  });
});

describe('hl7Segments', () => {
  it('splits at carriage returns, the HL7 segment end', () => {
    expect(hl7Segments(HL7_BODY)).toEqual([
      'MSH|^~\\&|LAB|CLINIC|EHR|CLINIC|20240501101500||ORU^R01|MSG0001|P|2.5',
      'PID|1||123^^^CLINIC||Nkosi^Thandi',
      'OBX|1|NM|HBA1C^Haemoglobin A1c||6.1|%|||||F',
    ]);
  });

  it('also splits at the newlines some senders use, and drops empty lines', () => {
    expect(hl7Segments('MSH|a\r\nPID|b\n\nOBX|c\r\r')).toEqual(['MSH|a', 'PID|b', 'OBX|c']);
  });

  it('keeps a cut last segment', () => {
    const cut = HL7_BODY.slice(0, HL7_BODY.indexOf('CLINIC||Nkosi'));
    expect(hl7Segments(cut)).toEqual(['MSH|^~\\&|LAB|CLINIC|EHR|CLINIC|20240501101500||ORU^R01|MSG0001|P|2.5', 'PID|1||123^^^']);
  });
});
