/**
 * Clinical key extraction (issue 37) from realistic HL7 v2 messages and FHIR JSON: every key the search finds a
 * message by, in every repetition and segment group, batches, escapes and line endings, and bodies that yield nothing.
 */
import { describe, expect, it } from 'vitest';
import { clinicalKeysOf, transactionKeys, MAX_KEYS_PER_TRANSACTION } from '../../service/domain/clinical/extract.js';
import type { ClinicalKey } from '../../service/domain/clinical/clinical-key.js';

const ADT_A01 = [
  'MSH|^~\\&|EPICADT|SMH^2.16.840.1.113883.3.72^ISO|LABADT|SMHLAB|20240115083000||ADT^A01^ADT_A01|MSG00001|P|2.5.1|||AL|NE',
  'EVN|A01|20240115083000',
  'PID|1||1004^^^SMH^MR~123-45-6789^^^SSA^SS~H778899^^^&2.16.840.1.113883.4.1&ISO^NI||Rivera^Ana^M||19800412|F|||12 Oak St^^Springfield^IL^62701|||||||ACC778^^^SMH^AN',
  'PV1|1|I|W2^201^A^SMH||||1234^Wells^Greta|||MED||||7|||1234^Wells^Greta|IN|VN5566^^^SMH^VN',
  '',
].join('\r');

const ORM_O01 = [
  'MSH|^~\\&|CPOE|SMH|LIS|SMHLAB|20240115090000||ORM^O01|ORD-7781|P|2.3',
  'PID|||1004^^^SMH^MR||Rivera^Ana',
  'ORC|NW|PLC-9001^CPOE|FIL-3001^LIS||SC',
  'OBR|1|PLC-9001^CPOE|FIL-3001^LIS|CBC^Complete blood count^L',
  'ORC|NW|PLC-9002^CPOE|||SC',
  'OBR|2|PLC-9002^CPOE||BMP^Basic metabolic panel^L',
].join('\r');

const ORU_R01 = [
  'MSH|^~\\&|LIS|SMHLAB|EMR|SMH|20240115120000||ORU^R01^ORU_R01|RES-55|P|2.5.1',
  'PID|1||1004^^^SMH^MR||Rivera^Ana',
  'OBR|1|PLC-9001^CPOE|ACC-1001^LIS|CBC^Complete blood count^L',
  'OBX|1|NM|718-7^Hemoglobin^LN||13.2|g/dL|12-16|N|||F',
  'OBR|2|PLC-9002^CPOE|ACC-1002^LIS|BMP^Basic metabolic panel^L',
  'OBX|1|NM|2951-2^Sodium^LN||140|mmol/L|135-145|N|||F',
  'OBR|3||ACC-1003^LIS~ACC-1003B^REF|LIPID^Lipid panel^L',
].join('\n');

function has(keys: readonly ClinicalKey[], name: string, value: string, authority?: string): boolean {
  return keys.some((k) => k.name === name && k.value === value && (authority === undefined || k.authority === authority));
}

describe('HL7 v2 keys', () => {
  it('reads an ADT^A01: type both ways, control id, applications, facilities, every PID-3 with its authority, account and visit', () => {
    const keys = clinicalKeysOf(ADT_A01, 'request');
    expect(keys.filter((k) => k.name === 'messageType').map((k) => k.value)).toEqual(['ADT', 'ADT^A01']);
    expect(has(keys, 'controlId', 'MSG00001')).toBe(true);
    expect(keys.find((k) => k.name === 'controlId')).toEqual({ name: 'controlId', value: 'MSG00001', field: 'MSH-10', part: 'request' });
    expect(has(keys, 'application', 'EPICADT')).toBe(true);
    expect(has(keys, 'application', 'LABADT')).toBe(true);
    expect(has(keys, 'facility', 'SMH')).toBe(true);
    expect(has(keys, 'facility', 'SMHLAB')).toBe(true);
    expect(keys.filter((k) => k.name === 'patientId')).toEqual([
      { name: 'patientId', value: '1004', authority: 'SMH', field: 'PID-3', part: 'request' },
      { name: 'patientId', value: '123-45-6789', authority: 'SSA', field: 'PID-3', part: 'request' },
      // No namespace id: the universal id (HD.2) names the authority.
      { name: 'patientId', value: 'H778899', authority: '2.16.840.1.113883.4.1', field: 'PID-3', part: 'request' },
    ]);
    expect(has(keys, 'account', 'ACC778', 'SMH')).toBe(true);
    expect(has(keys, 'visit', 'VN5566', 'SMH')).toBe(true);
  });

  it('reads every ORC and OBR group of an ORM^O01: placer and filler numbers with their namespaces, ordered tests', () => {
    const keys = clinicalKeysOf(ORM_O01, 'request');
    const orders = keys.filter((k) => k.name === 'orderNumber').map((k) => `${k.field}:${k.value}@${k.authority ?? ''}`);
    // Deduplicated: ORC-2 and OBR-2 repeat the same placer number; the first field it was seen in is kept.
    expect(orders).toEqual(['ORC-2:PLC-9001@CPOE', 'ORC-3:FIL-3001@LIS', 'ORC-2:PLC-9002@CPOE']);
    expect(keys.filter((k) => k.name === 'orderedTest').map((k) => k.value)).toEqual(['CBC', 'BMP']);
    expect(has(keys, 'messageType', 'ORM^O01')).toBe(true);
  });

  it('reads an ORU^R01 with several OBR groups, LF segment separators and repeated OBR-3', () => {
    const keys = clinicalKeysOf(ORU_R01, 'response');
    const orders = keys.filter((k) => k.name === 'orderNumber').map((k) => k.value);
    expect(orders).toEqual(['PLC-9001', 'ACC-1001', 'PLC-9002', 'ACC-1002', 'ACC-1003', 'ACC-1003B']);
    expect(keys.find((k) => k.value === 'ACC-1003B')).toMatchObject({ authority: 'REF', field: 'OBR-3', part: 'response' });
    expect(has(keys, 'patientId', '1004', 'SMH')).toBe(true);
    expect(keys.filter((k) => k.name === 'orderedTest').map((k) => k.value)).toEqual(['CBC', 'BMP', 'LIPID']);
  });

  it('reads every message of an FHS/BHS batch, each with its own separators, CRLF between segments', () => {
    const batch = [
      'FHS|^~\\&|LIS|SMHLAB|||20240115',
      'BHS|^~\\&|LIS|SMHLAB|||20240115',
      'MSH|^~\\&|LIS|SMHLAB|EMR|SMH|20240115||ORU^R01|B-1|P|2.5.1',
      'PID|1||2001^^^SMH^MR',
      'OBR|1||ACC-2001^LIS|GLU',
      // The second message uses other separators, as a batch assembled from several senders may.
      'MSH#*!$@#LAB2#SMHLAB#EMR#SMH#20240115##ORU*R01#B-2#P#2.5.1',
      'PID#1##2002***OTHER**MR!2003***SMH',
      'OBR#1##ACC-2002*LIS#K',
      'BTS|2',
      'FTS|1',
    ].join('\r\n');
    const keys = clinicalKeysOf(batch, 'request');
    expect(keys.filter((k) => k.name === 'controlId').map((k) => k.value)).toEqual(['B-1', 'B-2']);
    expect(keys.filter((k) => k.name === 'patientId').map((k) => `${k.value}@${k.authority ?? ''}`)).toEqual(['2001@SMH', '2002@OTHER', '2003@SMH']);
    expect(keys.filter((k) => k.name === 'orderNumber').map((k) => k.value)).toEqual(['ACC-2001', 'ACC-2002']);
    expect(has(keys, 'application', 'LAB2')).toBe(true);
  });

  it('undoes escape sequences in identifiers (\\T\\, \\S\\, \\F\\, \\E\\) with the message\'s own escape character', () => {
    const message = 'MSH|^~\\&|A|B|C|D|20240101||ADT^A08|ESC\\F\\1|P|2.5\rPID|1||99\\T\\1^^^HOSP\\S\\EAST~7\\E\\7^^^X\r';
    const keys = clinicalKeysOf(message, 'request');
    expect(has(keys, 'controlId', 'ESC|1')).toBe(true);
    expect(has(keys, 'patientId', '99&1', 'HOSP^EAST')).toBe(true);
    expect(has(keys, 'patientId', '7\\7', 'X')).toBe(true);
  });

  it('reads the retired identifier of a merge (MRG-1) as a patient ID', () => {
    const keys = clinicalKeysOf('MSH|^~\\&|A|B|C|D|20240101||ADT^A40|M1|P|2.5\rPID|1||5001^^^SMH\rMRG|4999^^^SMH\r', 'request');
    expect(keys.filter((k) => k.name === 'patientId').map((k) => `${k.field}:${k.value}`)).toEqual(['PID-3:5001', 'MRG-1:4999']);
  });

  it('yields nothing, and never throws, for bodies that are not HL7 or are broken', () => {
    const broken = [
      '',
      'hello world',
      'MSH',
      'MSHA^~\\&|x',
      'PID|1||1004^^^SMH', // no header: which separators?
      'MSH|',
      '\u0000\u0001MSH|^~\\&',
      '<xml/>',
    ];
    for (const body of broken) expect(() => clinicalKeysOf(body, 'request')).not.toThrow();
    for (const body of broken) expect(clinicalKeysOf(body, 'request').filter((k) => k.name === 'patientId')).toEqual([]);
    // A header with no fields after MSH-2 still yields no keys rather than empty ones.
    expect(clinicalKeysOf('MSH|^~\\&', 'request')).toEqual([]);
  });

  it('caps the keys of a hostile body (thousands of repetitions) and stays fast', () => {
    const reps = Array.from({ length: 50_000 }, (_, i) => `ID${i}^^^A`).join('~');
    const started = performance.now();
    const keys = clinicalKeysOf(`MSH|^~\\&|A|B|C|D|1||ADT^A01|C1|P|2.5\rPID|1||${reps}\r`, 'request');
    expect(keys.length).toBe(MAX_KEYS_PER_TRANSACTION);
    // Generous: the point is that it ends, not how fast this machine is.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

const TRANSACTION_BUNDLE = {
  resourceType: 'Bundle',
  id: 'tx-1',
  type: 'transaction',
  entry: [
    {
      fullUrl: 'urn:uuid:61ebe359-bfdc-4613-8bf2-c5e300945f0a',
      resource: {
        resourceType: 'Patient',
        id: 'pat-77',
        identifier: [
          { system: 'urn:oid:1.2.36.146.595.217.0.1', value: 'MRN-12345' },
          { system: 'http://hl7.org/fhir/sid/us-ssn', value: '444222222' },
        ],
        name: [{ family: 'Chalmers', given: ['Peter'] }],
      },
      request: { method: 'POST', url: 'Patient' },
    },
    {
      resource: {
        resourceType: 'ServiceRequest',
        id: 'sr-1',
        identifier: [{ system: 'http://lab.example.org/placer', value: 'PLC-555' }],
        requisition: { system: 'http://lab.example.org/req', value: 'REQ-9' },
        subject: { reference: 'Patient/pat-77' },
      },
    },
    {
      resource: {
        resourceType: 'Observation',
        id: 'obs-1',
        identifier: [{ system: 'http://lab.example.org/obs', value: 'OBS-1' }],
        subject: { reference: 'https://fhir.example.org/r4/Patient/pat-77/_history/3' },
        contained: [{ resourceType: 'Specimen', id: 'sp1', accessionIdentifier: { system: 'http://lab.example.org/acc', value: 'ACC-42' } }],
      },
    },
    {
      resource: {
        resourceType: 'DiagnosticReport',
        identifier: [{ system: 'http://lab.example.org/filler', value: 'FIL-88' }],
        subject: { identifier: { system: 'urn:oid:1.2.36.146.595.217.0.1', value: 'MRN-12345' } },
      },
    },
    { resource: { resourceType: 'Observation', subject: { reference: 'Group/g1' } } },
  ],
};

describe('FHIR JSON keys', () => {
  it('reads a transaction Bundle: resources, identifiers by kind, subject references and a reference by identifier', () => {
    const keys = clinicalKeysOf(JSON.stringify(TRANSACTION_BUNDLE), 'request');
    const shown = keys.map((k) => `${k.name}|${k.value}|${k.authority ?? ''}|${k.field}`);
    expect(shown).toEqual([
      'resource|Bundle/tx-1||Bundle.id',
      'resource|Patient/pat-77||Patient.id',
      'patientId|pat-77||Patient.id',
      'patientId|MRN-12345|urn:oid:1.2.36.146.595.217.0.1|Patient.identifier',
      'patientId|444222222|http://hl7.org/fhir/sid/us-ssn|Patient.identifier',
      'resource|ServiceRequest/sr-1||ServiceRequest.id',
      'orderNumber|PLC-555|http://lab.example.org/placer|ServiceRequest.identifier',
      'orderNumber|REQ-9|http://lab.example.org/req|ServiceRequest.requisition',
      'resource|Observation/obs-1||Observation.id',
      'identifier|OBS-1|http://lab.example.org/obs|Observation.identifier',
      'resource|Specimen/sp1||Specimen.id',
      'orderNumber|ACC-42|http://lab.example.org/acc|Specimen.accessionIdentifier',
      'orderNumber|FIL-88|http://lab.example.org/filler|DiagnosticReport.identifier',
    ]);
    // The subject references repeat keys already read: deduplicated, a Group is no patient.
    expect(keys.some((k) => k.value === 'g1')).toBe(false);
  });

  it('reads a single resource whose patient is named by `patient`', () => {
    const keys = clinicalKeysOf(JSON.stringify({ resourceType: 'AllergyIntolerance', id: 'a1', patient: { reference: 'Patient/123' } }), 'response');
    expect(keys).toEqual([
      { name: 'resource', value: 'AllergyIntolerance/a1', field: 'AllergyIntolerance.id', part: 'response' },
      { name: 'patientId', value: '123', field: 'AllergyIntolerance.patient', part: 'response' },
    ]);
  });

  it('yields nothing for malformed or non-FHIR JSON, and never throws', () => {
    const bodies = ['{', '{"resourceType": 5}', '{"a": 1}', '[{"resourceType":"Patient","id":"x"}]', '{"resourceType":"Patient","identifier":"nope","id":{}}', 'null', '{"resourceType":"patient","id":"1"}'];
    for (const body of bodies) expect(clinicalKeysOf(body, 'request')).toEqual([]);
  });

  it('bounds a deeply nested or huge Bundle', () => {
    let nested: Record<string, unknown> = { resourceType: 'Patient', id: 'deep' };
    for (let i = 0; i < 50; i++) nested = { resourceType: 'Bundle', entry: [{ resource: nested }] };
    expect(clinicalKeysOf(JSON.stringify(nested), 'request').some((k) => k.value === 'deep')).toBe(false);
    const huge = { resourceType: 'Bundle', entry: Array.from({ length: 5_000 }, (_, i) => ({ resource: { resourceType: 'Patient', id: `p${i}` } })) };
    expect(clinicalKeysOf(JSON.stringify(huge), 'request').length).toBeLessThanOrEqual(MAX_KEYS_PER_TRANSACTION);
  });
});

describe('a transaction\'s keys', () => {
  it('reads request and response together and keeps one of each key per part', () => {
    const ack = 'MSH|^~\\&|LIS|SMHLAB|CPOE|SMH|20240115||ACK^O01|ACK-1|P|2.3\rMSA|AA|ORD-7781\r';
    const keys = transactionKeys([
      { text: ORM_O01, part: 'request' },
      { text: ack, part: 'response' },
    ]);
    expect(keys.filter((k) => k.name === 'controlId').map((k) => `${k.part}:${k.value}`)).toEqual(['request:ORD-7781', 'response:ACK-1']);
    expect(new Set(keys.map((k) => `${k.name}|${k.value.toLowerCase()}|${k.authority ?? ''}|${k.part}`)).size).toBe(keys.length);
  });
});
