import { describe, expect, it } from 'vitest';
import { readHl7 } from './hl7';
import { fhirKeys, hl7Keys, markedParts, markedWords, repetitionMatches, searchWords } from './search-keys';

const ORM = [
  'MSH|^~\\&|LAB|CLINIC|EMR|HOSP|20260101120000||ORM^O01|CTRL-77|P|2.5.1',
  'PID|1||1004^^^MRN&1.2.3&ISO~88-A^^^NHS||DOE^JANE',
  'ORC|NW|ACC-12345^LAB|F-9',
  'OBR|1|ACC-12345^LAB|F-9|CBC^Blood count',
].join('\r');

describe('identifiers a message can be searched by', () => {
  it('reads every PID-3 repetition with its authority and the order numbers once each', () => {
    expect(hl7Keys(readHl7(ORM))).toEqual([
      { name: 'patientId', value: '1004', authority: 'MRN', field: 'PID-3' },
      { name: 'patientId', value: '88-A', authority: 'NHS', field: 'PID-3' },
      { name: 'orderNumber', value: 'ACC-12345', field: 'ORC-2' },
      { name: 'orderNumber', value: 'F-9', field: 'ORC-3' },
    ]);
  });

  it('reads a Patient in a Bundle with its system, a ServiceRequest as an order, and nothing from malformed JSON', () => {
    const bundle = JSON.stringify({
      resourceType: 'Bundle',
      entry: [
        { resource: { resourceType: 'Patient', identifier: [{ system: 'urn:mrn', value: 'P-1' }, { value: 'P-2' }] } },
        { resource: { resourceType: 'ServiceRequest', identifier: [{ system: 'urn:acc', value: 'SR-9' }] } },
        { resource: { resourceType: 'Observation', identifier: [{ value: 'OBS-1' }] } },
      ],
    });
    expect(fhirKeys(bundle)).toEqual([
      { name: 'patientId', value: 'P-1', authority: 'urn:mrn', field: 'Patient.identifier' },
      { name: 'patientId', value: 'P-2', field: 'Patient.identifier' },
      { name: 'orderNumber', value: 'SR-9', field: 'ServiceRequest.identifier' },
    ]);
    expect(fhirKeys('{"resourceType": "Patient", ')).toEqual([]);
  });

  it('marks every appearance of a value, any case, and tells the matching repetition', () => {
    expect(markedParts('"value": "p-1", "x": "P-1"', 'P-1')).toEqual([
      { text: '"value": "', marked: false },
      { text: 'p-1', marked: true },
      { text: '", "x": "', marked: false },
      { text: 'P-1', marked: true },
      { text: '"', marked: false },
    ]);
    expect(markedParts('nothing here', 'P-1')).toEqual([{ text: 'nothing here', marked: false }]);
    expect(repetitionMatches('1004^^^MRN', '^', ' 1004 ')).toBe(true);
    expect(repetitionMatches('10045^^^MRN', '^', '1004')).toBe(false);
  });

  it("marks a text search's words where they stand as whole words, any case, as the storage splits them", () => {
    expect(searchWords(' Hemoglobin, LOW! ')).toEqual(['hemoglobin', 'low']);
    expect(markedWords('OBX|1|TX|NOTE||Hemoglobin below range, low', ['hemoglobin', 'low'])).toEqual([
      { text: 'OBX|1|TX|NOTE||', marked: false },
      { text: 'Hemoglobin', marked: true },
      { text: ' below range, ', marked: false },
      { text: 'low', marked: true },
    ]);
    expect(markedWords('below', ['low'])).toEqual([{ text: 'below', marked: false }]);
    expect(markedWords('anything', [])).toEqual([{ text: 'anything', marked: false }]);
  });
});
