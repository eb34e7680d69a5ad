/** The alert Groups field: contact groups offered by name, stored by id, and an id that names no group still shown. */
import { describe, expect, it } from 'vitest';
import { alertGroupOptions } from './alert-groups';

const nurses = { _id: '64b000000000000000000001', group: 'On-call nurses' };
const admins = { _id: '64b000000000000000000002', group: 'Administrators' };
const gone = '64b0000000000000000000ff';

describe('alertGroupOptions', () => {
  it('offers every contact group by name, sorted, with its id as the stored value', () => {
    expect(alertGroupOptions([nurses, admins], [])).toEqual([
      { value: admins._id, label: 'Administrators' },
      { value: nurses._id, label: 'On-call nurses' },
    ]);
  });

  it('shows a chosen group by its name, not its id', () => {
    const options = alertGroupOptions([nurses], [nurses._id]);
    expect(options).toEqual([{ value: nurses._id, label: 'On-call nurses' }]);
  });

  it('keeps a chosen id that names no group, called unknown, so it can be removed', () => {
    expect(alertGroupOptions([nurses], [gone, nurses._id])).toEqual([
      { value: nurses._id, label: 'On-call nurses' },
      { value: gone, label: `unknown group ${gone}` },
    ]);
  });

  it('lists a chosen unknown id once even when it is chosen twice', () => {
    expect(alertGroupOptions([], [gone, gone])).toEqual([{ value: gone, label: `unknown group ${gone}` }]);
  });

  it('shows chosen ids as they are when the groups could not be fetched, without calling them unknown', () => {
    expect(alertGroupOptions(null, [nurses._id])).toEqual([{ value: nurses._id, label: nurses._id }]);
  });
});
