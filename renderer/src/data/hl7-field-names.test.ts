/** HL7 field names from the hl7v2-dictionary package, by the message's version (issue 36). */
import { describe, expect, it } from 'vitest';
import { loadFieldNamer, namerOf } from './hl7-field-names';

describe('HL7 field names', () => {
  it("names PID-5, MSH-9 and MSA-1 from the package's 2.5 dictionary", async () => {
    const names = await loadFieldNamer('2.5');
    expect(names('PID', 5)).toMatch(/^patient name$/i);
    expect(names('MSH', 9)).toMatch(/^message type$/i);
    expect(names('MSA', 1)).toMatch(/^acknowledge?ment code$/i);
    expect(names('ZXY', 1)).toBeUndefined();
    expect(names('PID', 999)).toBeUndefined();
  });

  it("follows the message's version, and falls back to 2.5 for none or nonsense", async () => {
    expect((await loadFieldNamer('2.3.1'))('PID', 5)).toMatch(/patient name/i);
    expect((await loadFieldNamer('2.5.2'))('OBX', 5)).toMatch(/observation value/i);
    expect((await loadFieldNamer(undefined))('PID', 5)).toMatch(/patient name/i);
    expect((await loadFieldNamer('not a version'))('PID', 5)).toMatch(/patient name/i);
  });

  it('leaves a field without a description unnamed', () => {
    const names = namerOf({ segments: { ZPI: { fields: { '1': { type: 'ST', desc: ' ' } } } } });
    expect(names('ZPI', 1)).toBeUndefined();
  });
});
