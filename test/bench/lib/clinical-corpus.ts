/**
 * A clinic's message traffic for the search benchmark (issue 37): HL7 v2 ADT^A01 / ADT^A08 / ORM^O01 / ORU^R01 with
 * their ACKs, and FHIR transaction Bundles (Patient, ServiceRequest, Observation) with their transaction-response.
 *
 * Message `i` is a pure function of `i` and the corpus size (its own small random stream seeded by `i`), so the
 * seeding, the queries and a re-run all see the same messages without keeping any of them.
 *
 * Who the messages are about follows a Zipf-Mandelbrot law: patient of rank r is chosen with probability
 * proportional to 1 / (r + q), over `total / 5` patients, with q = patients / 4000. Most patients then appear in
 * one to a few messages and the hundred or so most frequent (a dialysis patient, a long stay) in thousands, at any
 * corpus size. Words: the usual vocabulary of results and notes (common), and one rare word placed in a known few
 * messages, so both full-text cases have a known answer.
 */

export type MessageKind = 'ADT^A01' | 'ADT^A08' | 'ORM^O01' | 'ORU^R01' | 'FHIR Bundle';

export interface CorpusMessage {
  index: number;
  kind: MessageKind;
  /** When the message was received: spread evenly from `start` over the corpus span. */
  at: number;
  /** The request body, and what the receiving system answered (an HL7 ACK, or a FHIR transaction-response). */
  request: string;
  response: string;
  contentType: string;
  patient: { id: string; authority: string; rank: number };
  /** ORC-2 / OBR-2 (HL7) or ServiceRequest.identifier (FHIR); absent for ADT. */
  orderNumber?: string;
  /** MSH-10; absent for FHIR. */
  controlId?: string;
}

/** The share of each kind, in per mille (summing to 1000). */
const KIND_MIX: readonly [MessageKind, number][] = [
  ['ADT^A01', 100],
  ['ADT^A08', 150],
  ['ORM^O01', 200],
  ['ORU^R01', 300],
  ['FHIR Bundle', 250],
];

/** Assigning authorities of patient IDs (PID-3.4) and the FHIR identifier systems that stand for them. */
const AUTHORITIES: readonly { hl7: string; system: string }[] = [
  { hl7: 'CLINIC', system: 'http://clinic.example.org/fhir/sid/mrn' },
  { hl7: 'STMARY', system: 'http://stmary.example.org/fhir/sid/mrn' },
  { hl7: 'LABNET', system: 'urn:oid:2.16.840.1.113883.3.4711.1' },
];

const FAMILY = ['SMITH', 'JOHNSON', 'WILLIAMS', 'BROWN', 'JONES', 'GARCIA', 'MILLER', 'DAVIS', 'RODRIGUEZ', 'MARTINEZ', 'HERNANDEZ', 'LOPEZ', 'GONZALEZ', 'WILSON', 'ANDERSON', 'THOMAS', 'TAYLOR', 'MOORE', 'JACKSON', 'MARTIN', 'LEE', 'PEREZ', 'THOMPSON', 'WHITE', 'HARRIS', 'SANCHEZ', 'CLARK', 'RAMIREZ', 'LEWIS', 'ROBINSON', 'NKOSI', 'DLAMINI', 'OKAFOR', 'MENSAH', 'KOWALSKI', 'NOWAK', 'MULLER', 'SCHMIDT', 'ROSSI', 'ESPOSITO'];
const GIVEN = ['JAMES', 'MARY', 'JOHN', 'PATRICIA', 'ROBERT', 'JENNIFER', 'MICHAEL', 'LINDA', 'DAVID', 'ELIZABETH', 'WILLIAM', 'BARBARA', 'RICHARD', 'SUSAN', 'JOSEPH', 'JESSICA', 'THANDO', 'AMARA', 'KWAME', 'FATIMA', 'LUCIA', 'MATEO', 'SOFIA', 'LIAM', 'NOAH', 'EMMA', 'OLIVIA', 'AVA', 'ZANELE', 'SIPHO'];
const STREETS = ['MAIN ST', 'OAK AVE', 'PINE RD', 'MAPLE DR', 'CEDAR LN', 'ELM ST', 'HIGH ST', 'CHURCH RD', 'MILL LN', 'STATION RD'];
const CITIES = [['SPRINGFIELD', 'IL', '62701'], ['RIVERTON', 'WY', '82501'], ['FAIRVIEW', 'OR', '97024'], ['GREENVILLE', 'SC', '29601'], ['MADISON', 'WI', '53703']] as const;
const DOCTORS = ['1234^WELBY^MARCUS^^^DR', '2345^QUINN^MICHAELA^^^DR', '3456^HOUSE^GREGORY^^^DR', '4567^GREY^MEREDITH^^^DR', '5678^KILDARE^JAMES^^^DR', '6789^ROSS^DOUGLAS^^^DR'];
const WARDS = ['ER^101^A', 'MED^204^B', 'SURG^310^A', 'ICU^5^1', 'PEDS^12^B', 'OBS^7^A', 'DIAL^3^C'];

/** Panels ordered and resulted: code, name, and its observations (code, name, unit, low, high, decimals). */
const PANELS: readonly { code: string; name: string; tests: readonly [string, string, string, number, number, number][] }[] = [
  { code: '24331-1', name: 'Lipid panel', tests: [['2093-3', 'Cholesterol', 'mg/dL', 120, 260, 0], ['2571-8', 'Triglyceride', 'mg/dL', 40, 300, 0], ['2085-9', 'HDL Cholesterol', 'mg/dL', 25, 90, 0], ['13457-7', 'LDL Cholesterol calculated', 'mg/dL', 50, 190, 0]] },
  { code: '58410-2', name: 'CBC panel', tests: [['6690-2', 'Leukocytes', '10*3/uL', 3, 14, 1], ['789-8', 'Erythrocytes', '10*6/uL', 3.5, 6, 2], ['718-7', 'Hemoglobin', 'g/dL', 9, 18, 1], ['4544-3', 'Hematocrit', '%', 30, 54, 1], ['787-2', 'MCV', 'fL', 75, 105, 1], ['777-3', 'Platelets', '10*3/uL', 120, 450, 0]] },
  { code: '24323-8', name: 'Comprehensive metabolic panel', tests: [['2345-7', 'Glucose', 'mg/dL', 65, 240, 0], ['3094-0', 'Urea nitrogen', 'mg/dL', 6, 40, 0], ['2160-0', 'Creatinine', 'mg/dL', 0.5, 4, 2], ['2951-2', 'Sodium', 'mmol/L', 130, 148, 0], ['2823-3', 'Potassium', 'mmol/L', 3.2, 5.8, 1], ['2075-0', 'Chloride', 'mmol/L', 95, 110, 0], ['2028-9', 'Carbon dioxide', 'mmol/L', 20, 31, 0], ['17861-6', 'Calcium', 'mg/dL', 8.2, 10.8, 1], ['2885-2', 'Protein', 'g/dL', 5.8, 8.4, 1], ['1751-7', 'Albumin', 'g/dL', 3, 5.2, 1], ['1975-2', 'Bilirubin total', 'mg/dL', 0.1, 2, 1], ['6768-6', 'Alkaline phosphatase', 'U/L', 35, 160, 0]] },
  { code: '4548-4', name: 'Hemoglobin A1c', tests: [['4548-4', 'Hemoglobin A1c', '%', 4.5, 11, 1]] },
  { code: '3016-3', name: 'TSH', tests: [['3016-3', 'Thyrotropin', 'm[IU]/L', 0.2, 8, 2]] },
  { code: '24356-8', name: 'Urinalysis complete', tests: [['5811-5', 'Specific gravity', '{ratio}', 1.003, 1.03, 3], ['5803-2', 'pH urine', '[pH]', 5, 8, 1], ['5804-0', 'Protein urine', 'mg/dL', 0, 30, 0], ['5792-7', 'Glucose urine', 'mg/dL', 0, 50, 0]] },
  { code: '2157-6', name: 'Creatine kinase', tests: [['2157-6', 'Creatine kinase', 'U/L', 30, 400, 0]] },
  { code: '33914-3', name: 'Estimated GFR', tests: [['33914-3', 'eGFR', 'mL/min/1.73m2', 15, 120, 0]] },
];

/** Free-text note words, most common first (a note draws them with Zipf weights, so the first few are in most notes). */
const NOTE_WORDS = ('patient specimen sample result reviewed normal repeat fasting please hemolysed clinic follow up ' +
  'physician called notified critical value confirmed collected received lab morning evening ward discharge admission ' +
  'history medication allergy penicillin diabetes hypertension renal dialysis anticoagulant warfarin insulin metformin ' +
  'pregnancy pediatric geriatric outpatient inpatient emergency urgent routine stat pending corrected amended cancelled ' +
  'duplicate recollect lipemic icteric clotted insufficient volume transport delay refrigerated frozen thawed courier ' +
  'consent interpreter wheelchair isolation contact droplet airborne vaccination influenza measles tuberculosis hepatitis ' +
  'anemia ferritin thyroid cholesterol statin cardiology nephrology oncology hematology endocrinology neurology').split(' ');

/** The rare word: in the note of every RARE_EVERY-th message only (10 in 10,000,000; at least one in any corpus). */
export const RARE_WORD = 'xanthogranulomatous';
const RARE_EVERY = 1_000_003;
/** The common word: in most ORU notes and every CBC, so in a large share of all transactions. */
export const COMMON_WORD = 'hemoglobin';

/** mulberry32: a small, fast, seedable stream; good enough to pick from lists. */
function stream(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** `YYYYMMDDHHMMSS` in UTC, as HL7 DTM. */
function hl7Time(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)}${pad(d.getUTCHours(), 2)}${pad(d.getUTCMinutes(), 2)}${pad(d.getUTCSeconds(), 2)}`;
}

/** A bijection of 0..8,999,999 onto itself (the multiplier is coprime with the modulus), so MRNs look scattered. */
function scatter(n: number, modulus: number, multiplier: number, offset: number): number {
  return ((n * multiplier) % modulus) + offset;
}

export interface CorpusOptions {
  /** How many messages in all: the patient population and the rare word's spacing depend on it. */
  total: number;
  /** Time of message 0 and the span the messages are spread over, in ms. */
  start: number;
  spanMs: number;
}

export class ClinicalCorpus {
  readonly patients: number;
  readonly #q: number;
  readonly #logRange: number;
  readonly #step: number;

  constructor(readonly options: CorpusOptions) {
    this.patients = Math.max(100, Math.floor(options.total / 5));
    this.#q = Math.max(1, this.patients / 4000);
    this.#logRange = Math.log((this.patients + this.#q) / this.#q);
    this.#step = options.spanMs / Math.max(1, options.total);
  }

  /** Rank (0 = most frequent) of the patient a uniform draw `u` picks: the inverse of the Zipf-Mandelbrot CDF. */
  rankOf(u: number): number {
    const x = this.#q * Math.exp(u * this.#logRange) - this.#q;
    return Math.min(this.patients - 1, Math.floor(x));
  }

  /** Expected messages about the patient of `rank` over the whole corpus. */
  expectedMessages(rank: number): number {
    const mass = Math.log((rank + 1 + this.#q) / (rank + this.#q)) / this.#logRange;
    return mass * this.options.total;
  }

  /** The patient of `rank`: an MRN that does not give the rank away, and its assigning authority. */
  patient(rank: number): { id: string; authority: string; system: string; rank: number } {
    const authority = AUTHORITIES[rank % AUTHORITIES.length] ?? AUTHORITIES[0]!;
    return { id: String(scatter(rank, 8_999_999, 1_000_003, 1_000_000)), authority: authority.hl7, system: authority.system, rank };
  }

  /** Placer order number of order `n`: every order is placed (ORM or ServiceRequest) and resulted (ORU) about once. */
  orderNumber(n: number): string {
    return `ORD${pad(scatter(n, 99_999_989, 7_919, 0), 8)}`;
  }

  /** The message's MSH-10: the send time and a sequence, as interface engines number them. */
  controlId(index: number, at: number): string {
    return `${hl7Time(at)}${pad(index % 100_000, 5)}`;
  }

  /** Message `index`, built from nothing but its index. */
  message(index: number): CorpusMessage {
    const random = stream(index * 2_654_435_761 + 97);
    const at = Math.floor(this.options.start + index * this.#step);
    const roll = random() * 1000;
    let kind: MessageKind = 'ORU^R01';
    let acc = 0;
    for (const [k, share] of KIND_MIX) {
      acc += share;
      if (roll < acc) {
        kind = k;
        break;
      }
    }
    const patient = this.patient(this.rankOf(random()));
    const order = this.orderNumber(Math.floor(index / 2));
    const rare = index % RARE_EVERY === 17 % RARE_EVERY;
    const note = this.#note(random, kind === 'ORU^R01' ? 14 : 8, rare);
    if (kind === 'FHIR Bundle') return this.#bundle(index, at, random, patient, order, note);
    const controlId = this.controlId(index, at);
    const request = this.#hl7(kind, at, controlId, random, patient, order, note);
    const response = ack(controlId, at + 40 + Math.floor(random() * 400), kind);
    return { index, kind, at, request, response, contentType: 'x-application/hl7-v2+er7', patient, controlId, ...(kind.startsWith('ADT') ? {} : { orderNumber: order }) };
  }

  /** The indexes of the messages holding the rare word, below `total`. */
  rareWordMessages(): number[] {
    const found: number[] = [];
    for (let i = 17 % RARE_EVERY; i < this.options.total; i += RARE_EVERY) found.push(i);
    return found;
  }

  #note(random: () => number, words: number, rare: boolean): string {
    const out: string[] = [];
    const n = 3 + Math.floor(random() * words);
    for (let i = 0; i < n; i++) {
      // Zipf over the note vocabulary: word k with weight ~ 1/(k+1).
      const k = Math.floor(Math.exp(random() * Math.log(NOTE_WORDS.length + 1))) - 1;
      out.push(NOTE_WORDS[Math.min(NOTE_WORDS.length - 1, k)] ?? 'patient');
    }
    if (rare) out.splice(Math.floor(random() * out.length), 0, RARE_WORD);
    return out.join(' ');
  }

  #hl7(kind: Exclude<MessageKind, 'FHIR Bundle'>, at: number, controlId: string, random: () => number, patient: ReturnType<ClinicalCorpus['patient']>, order: string, note: string): string {
    const [type, trigger] = kind.split('^') as [string, string];
    const structure = kind === 'ADT^A08' ? 'ADT_A01' : `${type}_${trigger}`;
    const ts = hl7Time(at);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    const rank = patient.rank;
    const family = FAMILY[rank % FAMILY.length] ?? 'DOE';
    const given = GIVEN[Math.floor(rank / FAMILY.length) % GIVEN.length] ?? 'JANE';
    const sex = rank % 2 === 0 ? 'F' : 'M';
    const dob = `19${pad(30 + (rank % 70), 2)}${pad(1 + (rank % 12), 2)}${pad(1 + (rank % 28), 2)}`;
    const [city, state, zip] = CITIES[rank % CITIES.length] ?? CITIES[0];
    const account = `ACC${pad(scatter(rank * 7 + Math.floor(at / 86_400_000), 9_999_991, 4_391, 0), 7)}`;
    // Some patients carry a second identifier: a national number, as a repetition of PID-3.
    const ids = [`${patient.id}^^^${patient.authority}^MR`];
    if (rank % 4 === 0) ids.push(`${pad(scatter(rank, 999_999_937, 31_337, 0), 9)}^^^SSA^SS`);
    const msh = `MSH|^~\\&|${kind.startsWith('ADT') ? 'EPIC^ADT' : kind === 'ORU^R01' ? 'LIS^LAB' : 'EPIC^ORDERS'}|${pick(['MAINCLINIC', 'NORTHCLINIC', 'STMARY'])}|${kind === 'ORU^R01' ? 'EMR^EMR' : 'LIS^LAB'}|CENTRALLAB|${ts}||${type}^${trigger}^${structure}|${controlId}|P|2.5.1|||AL|NE||UNICODE UTF-8`;
    const pid = `PID|1||${ids.join('~')}||${family}^${given}^${String.fromCharCode(65 + (rank % 26))}^^^^L||${dob}|${sex}||2106-3^White^CDCREC|${100 + (rank % 9800)} ${STREETS[rank % STREETS.length]}^^${city}^${state}^${zip}^USA^H||^PRN^PH^^1^555^${pad(rank % 10_000_000, 7)}|||S||${account}^^^${patient.authority}^AN`;
    const ward = pick(WARDS);
    const doctor = pick(DOCTORS);
    const pv1 = `PV1|1|${ward.startsWith('ER') ? 'E' : random() < 0.5 ? 'I' : 'O'}|${ward}^${pick(['MAINCLINIC', 'NORTHCLINIC'])}||||${doctor}|${pick(DOCTORS)}||MED||||1|||${doctor}|IN||${pick(['SELF', 'MEDICARE', 'BCBS'])}|||||||||||||||||||||||${ts}`;
    const segments = [msh];
    if (kind.startsWith('ADT')) {
      segments.push(`EVN|${trigger}|${ts}|||${doctor}`, pid, `PD1|||${pick(['MAINCLINIC', 'NORTHCLINIC'])}^^^^^^^^^`, `NK1|1|${family}^${pick(GIVEN)}|SPO^Spouse^HL70063||^PRN^PH^^1^555^${pad((rank * 13) % 10_000_000, 7)}`, pv1, `PV2|||${pick(['Chest pain', 'Shortness of breath', 'Fever', 'Follow-up visit', 'Abdominal pain'])}`);
      segments.push(`AL1|1|DA|${pick(['PENICILLIN', 'SULFA', 'LATEX', 'NKA'])}|MO|RASH`, `DG1|1|I10|${pick(['I10^Essential hypertension', 'E11.9^Type 2 diabetes mellitus', 'N18.6^End stage renal disease', 'J18.9^Pneumonia'])}^I10||${ts}|A`);
      segments.push(`IN1|1|${pick(['MEDICARE', 'BCBS', 'AETNA'])}^^^^^|${pad(rank % 100_000, 5)}|${pick(['MEDICARE', 'BLUE CROSS', 'AETNA'])}|||||||||||${family}^${given}|SEL`);
      if (note !== '') segments.push(`NTE|1|L|${note}`);
      return `${segments.join('\r')}\r`;
    }
    const panel = pick(PANELS);
    const filler = `F${order.slice(3)}`;
    const orc = `ORC|${kind === 'ORM^O01' ? 'NW' : 'RE'}|${order}^EPIC|${filler}^LAB||${kind === 'ORM^O01' ? 'SC' : 'CM'}||^^^${ts}^^R||${ts}|||${doctor}|${ward}`;
    const obr = `OBR|1|${order}^EPIC|${filler}^LAB|${panel.code}^${panel.name}^LN|||${ts}|||||||${ts}|BLD&Blood&HL70070|${doctor}||||||${ts}|||${kind === 'ORM^O01' ? 'O' : 'F'}`;
    segments.push(pid, pv1, orc, obr);
    if (kind === 'ORM^O01') {
      segments.push(`DG1|1|I10|${pick(['R73.09^Abnormal glucose', 'Z00.00^General exam', 'N18.3^Chronic kidney disease stage 3'])}^I10`, `NTE|1|P|${note}`);
      return `${segments.join('\r')}\r`;
    }
    panel.tests.forEach(([code, name, unit, low, high, decimals], i) => {
      const value = low * 0.8 + random() * (high - low) * 1.3;
      const flag = value < low ? 'L' : value > high ? 'H' : 'N';
      segments.push(`OBX|${i + 1}|NM|${code}^${name}^LN||${value.toFixed(decimals)}|${unit}|${low}-${high}|${flag}|||F|||${ts}|LAB^Central Laboratory`);
    });
    segments.push(`NTE|1|L|${panel.name === 'CBC panel' ? `${COMMON_WORD} reviewed ` : ''}${note}`);
    return `${segments.join('\r')}\r`;
  }

  #bundle(index: number, at: number, random: () => number, patient: ReturnType<ClinicalCorpus['patient']>, order: string, note: string): CorpusMessage {
    const when = new Date(at).toISOString();
    const rank = patient.rank;
    const panel = PANELS[Math.floor(random() * PANELS.length)] ?? PANELS[0]!;
    const patientUuid = `urn:uuid:${uuidOf(index, 1)}`;
    const requestUuid = `urn:uuid:${uuidOf(index, 2)}`;
    const entries: unknown[] = [
      {
        fullUrl: patientUuid,
        resource: {
          resourceType: 'Patient',
          identifier: [
            { use: 'usual', type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'MR' }] }, system: patient.system, value: patient.id },
            ...(rank % 4 === 0 ? [{ use: 'official', system: 'http://hl7.org/fhir/sid/us-ssn', value: pad(scatter(rank, 999_999_937, 31_337, 0), 9) }] : []),
          ],
          name: [{ family: (FAMILY[rank % FAMILY.length] ?? 'Doe').toLowerCase().replace(/^./, (c) => c.toUpperCase()), given: [(GIVEN[Math.floor(rank / FAMILY.length) % GIVEN.length] ?? 'Jane').toLowerCase().replace(/^./, (c) => c.toUpperCase())] }],
          gender: rank % 2 === 0 ? 'female' : 'male',
          birthDate: `19${pad(30 + (rank % 70), 2)}-${pad(1 + (rank % 12), 2)}-${pad(1 + (rank % 28), 2)}`,
        },
        request: { method: 'PUT', url: `Patient?identifier=${encodeURIComponent(patient.system)}|${patient.id}` },
      },
      {
        fullUrl: requestUuid,
        resource: {
          resourceType: 'ServiceRequest',
          identifier: [{ type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'PLAC' }] }, system: 'http://clinic.example.org/fhir/sid/placer', value: order }],
          status: 'completed',
          intent: 'order',
          code: { coding: [{ system: 'http://loinc.org', code: panel.code, display: panel.name }] },
          subject: { reference: patientUuid },
          authoredOn: when,
          note: [{ text: note }],
        },
        request: { method: 'POST', url: 'ServiceRequest' },
      },
    ];
    panel.tests.forEach(([code, name, unit, low, high, decimals], i) => {
      const value = Number((low * 0.8 + random() * (high - low) * 1.3).toFixed(decimals));
      entries.push({
        fullUrl: `urn:uuid:${uuidOf(index, 10 + i)}`,
        resource: {
          resourceType: 'Observation',
          status: 'final',
          category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'laboratory' }] }],
          code: { coding: [{ system: 'http://loinc.org', code, display: name }], text: name },
          subject: { reference: patientUuid },
          basedOn: [{ reference: requestUuid }],
          effectiveDateTime: when,
          valueQuantity: { value, unit, system: 'http://unitsofmeasure.org', code: unit },
          referenceRange: [{ low: { value: low, unit }, high: { value: high, unit } }],
        },
        request: { method: 'POST', url: 'Observation' },
      });
    });
    const bundle = { resourceType: 'Bundle', id: uuidOf(index, 0), type: 'transaction', timestamp: when, entry: entries };
    const response = {
      resourceType: 'Bundle',
      type: 'transaction-response',
      entry: entries.map((_, i) => ({ response: { status: i === 0 ? '200 OK' : '201 Created', location: `${i === 0 ? 'Patient' : i === 1 ? 'ServiceRequest' : 'Observation'}/${(index * 16 + i).toString(36)}/_history/1`, lastModified: when } })),
    };
    return { index, kind: 'FHIR Bundle', at, request: JSON.stringify(bundle), response: JSON.stringify(response), contentType: 'application/fhir+json', patient, orderNumber: order };
  }
}

/** A UUID-shaped id, unique per (message, part). */
function uuidOf(index: number, part: number): string {
  const hex = (index * 64 + part).toString(16).padStart(20, '0');
  return `6a1e${hex.slice(0, 4)}-${hex.slice(4, 8)}-4${hex.slice(9, 12)}-8${hex.slice(13, 16)}-${hex.slice(16, 20)}c0ffee00`;
}

/** The receiving system's ACK for an HL7 message. */
function ack(controlId: string, at: number, kind: MessageKind): string {
  const trigger = kind.split('^')[1] ?? 'A01';
  return `MSH|^~\\&|LIS^LAB|CENTRALLAB|EPIC^ADT|MAINCLINIC|${hl7Time(at)}||ACK^${trigger}^ACK|ACK${controlId}|P|2.5.1\rMSA|AA|${controlId}|Message accepted\r`;
}
