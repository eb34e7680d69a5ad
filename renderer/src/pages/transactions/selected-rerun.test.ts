import { describe, expect, it } from 'vitest';
import { selectedRerunSummary } from './selected-rerun';

describe('selectedRerunSummary', () => {
  it('warns that one chosen transaction goes out again', () => {
    expect(selectedRerunSummary(['a'], [{ _id: 'a' }])).toBe(
      "The selected transaction is sent again through its channel's current routes, so the receiving systems may get the message a second time.",
    );
  });

  it('names the chosen rows already re-run and those that are re-runs, ignoring rows not chosen', () => {
    const rows = [{ _id: 'a', wasRerun: true }, { _id: 'b', parentID: 'a' }, { _id: 'c', wasRerun: true }, { _id: 'd', wasRerun: true, parentID: 'x' }];
    expect(selectedRerunSummary(['a', 'b', 'd'], rows)).toBe(
      "The 3 selected transactions are sent again through their channel's current routes, so the receiving systems may get the messages a second time. " +
        '2 of them were already re-run. 2 of them are themselves re-runs.',
    );
    expect(selectedRerunSummary(['b', 'zz'], rows)).toContain('One of them is itself a re-run.');
    expect(selectedRerunSummary(['b', 'zz'], rows)).not.toContain('already re-run');
  });
});
