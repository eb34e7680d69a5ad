import { describe, expect, it } from 'vitest';
import { readAnswer, writeAnswer } from '../../service/audit/parse-answer.js';
import { parseAuditMessage } from '../../service/audit/parse-audit.js';
import { encodeAudit } from '../../service/storage/audit-rows.js';
import { rfc5424, sample } from './samples.js';

const received = new Date('2026-11-23T10:00:00Z');

function encodedBatch() {
  return [rfc5424(sample('dicom-pix-query')), rfc5424('<Other/>'), 'no header at all'].map((text) => {
    const { audit, problem } = parseAuditMessage(text, received);
    return { encoded: encodeAudit(audit), ...(problem === undefined ? {} : { problem }) };
  });
}

describe('the parse worker’s answer', () => {
  it('reads back exactly the batch written, documents (quotes, newlines, non-ASCII) outside the JSON', () => {
    const batch = encodedBatch();
    const unicode = batch[0];
    if (unicode === undefined) throw new Error('no batch');
    unicode.encoded.columns.doc = unicode.encoded.columns.doc.replace('"Query"', '"Qu\\"ery \\n é 𝄞"');
    const expected = structuredClone(batch);
    const answer = writeAnswer(7, batch);
    expect(answer.id).toBe(7);
    expect(answer.docs).toEqual(expected.map((r) => r.encoded.columns.doc));
    expect(answer.json).not.toContain('rawMessage');
    expect(readAnswer(structuredClone(answer))).toEqual(expected);
  });

  it('answers undefined for an answer whose documents do not match its results', () => {
    const answer = writeAnswer(1, encodedBatch());
    expect(readAnswer({ ...answer, docs: answer.docs.slice(1) })).toBeUndefined();
    expect(readAnswer({ ...answer, docs: undefined as unknown as string[] })).toBeUndefined();
  });
});
