import { describe, expect, it } from 'vitest';
import { AppError } from '../service/errors.js';
import { conflict, invalidInput, refuseIfInvalid, refusal } from '../service/refusals.js';
import { StoreError, UniqueConstraintError } from '../service/storage/store.js';

function caught(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('refusals', () => {
  it('refuses invalid input with every problem listed and the first in the message', () => {
    const problems = [
      { path: 'body.name', message: 'is required' },
      { path: 'body.port', message: 'must be a number' },
    ];
    const err = caught(() => refuseIfInvalid(problems));
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).toBody()).toEqual({ error: { code: 'VALIDATION_FAILED', message: 'body.name is required', details: problems } });
    expect(() => refuseIfInvalid([{ path: 'body', message: 'is empty' }])).toThrow('body is empty');
    expect(() => refuseIfInvalid([])).not.toThrow();
    expect(invalidInput([], 'The request is not valid').message).toBe('The request is not valid');
  });

  it('words one problem under any code the same way', () => {
    expect(refusal('CONFLICT', { path: 'body.name', message: 'is taken' }).toBody()).toEqual({
      error: { code: 'CONFLICT', message: 'body.name is taken', details: [{ path: 'body.name', message: 'is taken' }] },
    });
  });

  it('turns a taken unique field into 409 naming the body field a caller sets, and rethrows anything else', () => {
    const onClient = conflict({ message: (field) => `Another client already uses this ${field}`, problem: 'already in use', bodyFields: { customTokenHash: 'customToken' } });
    const err = caught(() => onClient(new UniqueConstraintError('clients', 'customTokenHash')));
    expect((err as AppError).toBody()).toEqual({
      error: { code: 'CONFLICT', message: 'Another client already uses this customToken', details: [{ path: 'body.customToken', message: 'already in use' }] },
    });
    const plain = caught(() => conflict({ message: () => 'Taken' })(new UniqueConstraintError('mediators', 'urn')));
    expect((plain as AppError).toBody()).toEqual({ error: { code: 'CONFLICT', message: 'Taken', details: null } });
    const other = new StoreError('disk full');
    expect(caught(() => onClient(other))).toBe(other);
  });
});
