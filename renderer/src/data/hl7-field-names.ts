/**
 * HL7 v2 field names (`PID-5` is "Patient Name") from the hl7v2-dictionary package (MIT; the segments, fields and
 * data types of v2.1 to v2.8), not from a table of our own. The dictionary is large, so it is loaded on first use,
 * in its own chunk of the console's bundle, when an HL7 message is first shown.
 */
import type { HL7Dictionary } from 'hl7v2-dictionary';

/** The name of field `field` of segment `segment` (`PID`, 5), or undefined when the dictionary has none. */
export type FieldNamer = (segment: string, field: number) => string | undefined;

/** The namer of one version's dictionary. */
export function namerOf(dictionary: Pick<HL7Dictionary, 'segments'>): FieldNamer {
  return (segment, field) => {
    const description = dictionary.segments[segment]?.fields[String(field)]?.desc?.trim();
    return description === undefined || description === '' ? undefined : description;
  };
}

/** The version the message names (MSH-12), else 2.5, as the nearest version the dictionary has. */
export async function loadFieldNamer(version: string | undefined): Promise<FieldNamer> {
  const { dictionaries, findNearestHL7Version, HL7Version } = await import('hl7v2-dictionary');
  const wanted = version !== undefined && /^2(\.\d+){1,2}$/.test(version.trim()) ? version.trim() : HL7Version.v2_5;
  let nearest: string;
  try {
    nearest = findNearestHL7Version(wanted as typeof HL7Version.v2_5);
  } catch {
    nearest = HL7Version.v2_5;
  }
  const dictionary = dictionaries[nearest as typeof HL7Version.v2_5] ?? dictionaries[HL7Version.v2_5];
  return dictionary === undefined ? () => undefined : namerOf(dictionary);
}
