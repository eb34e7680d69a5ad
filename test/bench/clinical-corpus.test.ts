/**
 * The search benchmark's corpus says what it holds, and the service's extraction agrees: each message's patient ID
 * (with its authority), order number and control ID come out of its bodies as keys, so the benchmark's questions
 * have the answers it expects; patients follow the intended skew; the rare word is where the corpus says.
 */
import { describe, expect, it } from 'vitest';
import { normaliseKeyValue } from '../../service/domain/clinical/clinical-key.js';
import { transactionKeys } from '../../service/domain/clinical/extract.js';
import { ClinicalCorpus, COMMON_WORD, RARE_WORD } from './lib/clinical-corpus.js';

const total = 20_000;
const corpus = new ClinicalCorpus({ total, start: Date.parse('2026-10-01T00:00:00Z'), spanMs: 30 * 86_400_000 });

describe('the clinical corpus of the search benchmark', () => {
  it('builds the same message from the same index', () => {
    expect(corpus.message(1234)).toEqual(corpus.message(1234));
    expect(corpus.message(1234).request).not.toBe(corpus.message(1235).request);
  });

  it('holds every kind, and each message its keys as the extraction reads them', () => {
    const kinds = new Set<string>();
    for (let i = 0; i < 400; i++) {
      const m = corpus.message(i);
      kinds.add(m.kind);
      const keys = transactionKeys([
        { text: m.request, part: 'request' },
        { text: m.response, part: 'response' },
      ]);
      const has = (name: string, value: string, authority?: string) =>
        keys.some((k) => k.name === name && normaliseKeyValue(k.value) === normaliseKeyValue(value) && (authority === undefined || normaliseKeyValue(k.authority ?? '') === normaliseKeyValue(authority)));
      expect(has('patientId', m.patient.id, m.kind === 'FHIR Bundle' ? undefined : m.patient.authority), `${m.kind} #${i} patient`).toBe(true);
      if (m.orderNumber !== undefined) expect(has('orderNumber', m.orderNumber), `${m.kind} #${i} order`).toBe(true);
      if (m.controlId !== undefined) expect(has('controlId', m.controlId), `${m.kind} #${i} control id`).toBe(true);
    }
    expect([...kinds].sort()).toEqual(['ADT^A01', 'ADT^A08', 'FHIR Bundle', 'ORM^O01', 'ORU^R01']);
  });

  it('puts most patients in a few messages and a few in hundreds or more', () => {
    const counts = new Map<string, number>();
    let common = 0;
    for (let i = 0; i < total; i++) {
      const m = corpus.message(i);
      counts.set(m.patient.id, (counts.get(m.patient.id) ?? 0) + 1);
      if (m.request.toLowerCase().includes(COMMON_WORD)) common++;
    }
    const sorted = [...counts.values()].sort((a, b) => b - a);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThanOrEqual(3);
    expect(sorted[0]).toBeGreaterThan(500);
    expect(common / total).toBeGreaterThan(0.1);
  });

  it('puts the rare word where it says, and nowhere else nearby', () => {
    const [at] = corpus.rareWordMessages();
    expect(at).toBeDefined();
    expect(corpus.message(at ?? 0).request).toContain(RARE_WORD);
    for (let i = 0; i < 2000; i++) if (i !== at) expect(corpus.message(i).request).not.toContain(RARE_WORD);
  });
});
