/** The Import/Export page's plan: reading a file, pairing validate's results with its records, and the body the choices make. */
import { describe, expect, it } from 'vitest';
import type { MetadataResult } from '../../../../service/contracts/metadata';
import { hasSealedSecrets, importBody, newNameProblem, planFrom, readExportFile } from './import-plan';

const result = (model: string, uid: string, status: MetadataResult['status']): MetadataResult => ({ model, uid, status, record: {}, message: '' });

describe('import plan', () => {
  it('reads an export (an array of one object) or the object alone, and says why anything else is not one', () => {
    expect(readExportFile('[{"Channels": []}]')).toEqual({ Channels: [] });
    expect(readExportFile('{"Users": [{"email": "a@b.c"}]}')).toEqual({ Users: [{ email: 'a@b.c' }] });
    expect(() => readExportFile('not json')).toThrow(/not JSON/);
    expect(() => readExportFile('{"Channels": {}}')).toThrow(/"Channels" in this file is not a list/);
    expect(() => readExportFile('[1, 2]')).toThrow(/does not hold an export/);
    expect(() => readExportFile('{}')).toThrow(/no collections/);
  });

  it('pairs results with the file’s records by collection and key, whatever their order, and defaults as OpenHIM’s console', () => {
    const body = { Channels: [{ name: 'A', encryptedSecrets: {} }, { name: 'B' }], Users: [{ email: 'Nina@Clinic.example' }] };
    expect(hasSealedSecrets(body)).toBe(true);
    const plan = planFrom(body, [result('Users', 'nina@clinic.example', 'Valid'), result('Channels', 'B', 'Conflict'), result('Channels', 'A', 'Error')]);
    expect(plan.map((p) => [p.uid, p.choice, p.doc])).toEqual([
      ['nina@clinic.example', 'import', { email: 'Nina@Clinic.example' }],
      ['B', 'ignore', { name: 'B' }],
      ['A', 'skip', { name: 'A', encryptedSecrets: {} }],
    ]);
  });

  it('sends the chosen records, a copy under its new name (sealed secrets kept), and refuses a name in use', () => {
    const body = { Channels: [{ name: 'A', encryptedSecrets: { x: 1 } }, { name: 'B' }, { name: 'C' }] };
    const plan = planFrom(body, [result('Channels', 'A', 'Conflict'), result('Channels', 'B', 'Conflict'), result('Channels', 'C', 'Valid')]);
    const [a, b] = plan;
    if (a === undefined || b === undefined) throw new Error('plan too short');
    a.choice = 'duplicate';
    a.newName = 'B';
    expect(newNameProblem(a, plan)).toMatch(/already used/);
    a.newName = ' A2 ';
    expect(newNameProblem(a, plan)).toBeNull();
    b.choice = 'overwrite';
    expect(importBody(plan)).toEqual({ Channels: [{ name: 'A2', encryptedSecrets: { x: 1 } }, { name: 'B' }, { name: 'C' }] });
    b.choice = 'ignore';
    expect(importBody(plan).Channels?.map((c) => (c as { name: string }).name)).toEqual(['A2', 'C']);
  });
});
