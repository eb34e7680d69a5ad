/**
 * The sample a "Send test message" dialog starts from (issue 36), by channel kind: an HL7 v2 ADT^A01 for tcp and tls
 * channels (and http channels that take HL7), a FHIR Patient for FHIR-looking ones, a small JSON or XML document
 * otherwise; with a path and method an http channel matches. The administrator edits or confirms it: only what the
 * dialog then holds is sent.
 */
import type { Channel } from '../../../../service/contracts/channels';
import { channelKind } from '../../data/kinds';
import { prefixOf } from './url-prefix';

export interface TestSample {
  body: string;
  /** An HL7 v2 message, whose line breaks are sent as segment separators (CR). */
  hl7: boolean;
  /** http channels only. */
  method?: string;
  path?: string;
  contentType?: string;
}

type SampledChannel = Pick<Channel, 'type' | 'urlPattern' | 'methods' | 'matchContentTypes'>;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** An HL7 timestamp (YYYYMMDDHHMMSS) of `at` in the browser's zone. */
function hl7Time(at: Date): string {
  return `${at.getFullYear()}${pad(at.getMonth() + 1)}${pad(at.getDate())}${pad(at.getHours())}${pad(at.getMinutes())}${pad(at.getSeconds())}`;
}

/** An ADT^A01 (admit) for a made-up test patient, one segment per line. */
export function hl7Sample(at: Date, controlId: string): string {
  return [
    `MSH|^~\\&|JUNCTION|CONSOLE|RECEIVER|CLINIC|${hl7Time(at)}||ADT^A01|${controlId}|P|2.5`,
    `EVN|A01|${hl7Time(at)}`,
    'PID|1||TEST-0001^^^JUNCTION^MR||TEST^PATIENT||19800101|U',
    'PV1|1|O',
  ].join('\n');
}

/** The text of an HL7 message as sent: each line break a segment separator (CR), and a CR after the last segment. */
export function hl7ForSending(text: string): string {
  const segments = text.split(/\r\n|\n|\r/).filter((line) => line.trim() !== '');
  return segments.length === 0 ? '' : `${segments.join('\r')}\r`;
}

/** A path the URL pattern takes: its prefix, or its literal start, or `/` (the person corrects it). */
function samplePath(pattern: string): string {
  const prefix = prefixOf(pattern);
  if (prefix !== null) return /fhir/i.test(prefix) && !prefix.endsWith('/') ? `${prefix}/Patient` : prefix;
  const literal = /^\^?((?:\\.|[^\\^$.*+?()[\]{}|])*)/.exec(pattern)?.[1]?.replace(/\\(.)/g, '$1') ?? '';
  return literal.startsWith('/') ? literal : '/';
}

/** The sample for a channel, dated `at`, with the HL7 control id `controlId`. */
export function testSample(channel: SampledChannel, at: Date, controlId: string): TestSample {
  if (channelKind(channel.type).listens) return { body: hl7Sample(at, controlId), hl7: true };
  const contentType = channel.matchContentTypes[0] ?? (/fhir/i.test(channel.urlPattern) ? 'application/fhir+json' : 'application/json');
  const method = channel.methods.length === 0 || channel.methods.includes('POST') ? 'POST' : (channel.methods[0] ?? 'POST');
  const path = samplePath(channel.urlPattern);
  if (/hl7/i.test(contentType)) return { body: hl7Sample(at, controlId), hl7: true, method, path, contentType };
  if (/xml/i.test(contentType)) return { body: `<test>\n  <from>Junction console</from>\n  <sent>${at.toISOString()}</sent>\n</test>`, hl7: false, method, path, contentType };
  if (/fhir/i.test(contentType)) {
    const patient = { resourceType: 'Patient', identifier: [{ system: 'urn:junction:test', value: controlId }], name: [{ family: 'Test', given: ['Patient'] }] };
    return { body: JSON.stringify(patient, null, 2), hl7: false, method, path, contentType };
  }
  return { body: JSON.stringify({ test: true, from: 'Junction console', sent: at.toISOString() }, null, 2), hl7: false, method, path, contentType };
}
