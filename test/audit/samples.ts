/**
 * Sample audit messages of the IHE events a clinic sees, written for these tests from the structure RFC 3881 and
 * DICOM PS3.15 A.5 define: `.xml` files are the audit alone, `.syslog` files whole syslog messages, header included
 * (not `.log`, which git ignores here). The listener, sender and benchmark tests reuse them.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The XML samples, by the name `sample` takes. */
export const XML_SAMPLES = [
  'rfc3881-login',
  'dicom-login-failure',
  'rfc3881-patient-read',
  'dicom-patient-read',
  'dicom-pix-query',
  'rfc3881-registry-query',
  'dicom-app-start',
] as const;

/** The whole syslog messages, by the name `sample` takes. */
export const SYSLOG_SAMPLES = ['dicom-login-failure.rfc5424', 'dicom-pix-query.rfc5424', 'rfc3881-patient-read.rfc3164'] as const;

export type SampleName = (typeof XML_SAMPLES)[number] | (typeof SYSLOG_SAMPLES)[number];

// From the sources, or from dist/test/audit when the benchmark runs compiled.
const folder = [new URL('./samples/', import.meta.url), new URL('../../../test/audit/samples/', import.meta.url)]
  .map((url) => fileURLToPath(url))
  .find((path) => existsSync(path));

/** One sample's text, exactly as stored (`dicom-pix-query` for the XML, `dicom-pix-query.rfc5424` for a syslog message). */
export function sample(name: SampleName): string {
  if (folder === undefined) throw new Error('test/audit/samples not found');
  const file = readdirSync(folder).find((f) => f === `${name}.xml` || f === `${name}.syslog`);
  if (file === undefined) throw new Error(`no audit sample named ${name}`);
  return readFileSync(`${folder}${file}`, 'utf8');
}

/** `xml` behind an RFC 5424 header as OpenHIM's sender writes it (PRI 85: facility sec, severity notice; no structured data). */
export function rfc5424(xml: string, options: { time?: string; host?: string; appName?: string; pid?: string } = {}): string {
  const { time = '2026-11-23T08:00:00.000Z', host = 'emr.clinic.example', appName = 'clinic-emr', pid = '4410' } = options;
  return `<85>1 ${time} ${host} ${appName} ${pid} IHE+RFC-3881 - ${xml}`;
}

/** `xml` behind an RFC 3164 header (PRI 86: facility sec, severity info), as util-linux `logger` writes one. */
export function rfc3164(xml: string, options: { time?: string; host?: string; tag?: string } = {}): string {
  const { time = 'Nov 23 10:00:00', host = 'emr', tag = 'clinic-emr[4410]' } = options;
  return `<86>${time} ${host} ${tag}: ${xml}`;
}
