import { describe, expect, it } from 'vitest';
import { TERM, encodeAudit } from '../../service/storage/audit-rows.js';
import type { NewAudit } from '../../service/storage/audits.js';

describe('encodeAudit terms', () => {
  it('keeps each (kind, value) once, in first-seen order, for a few terms and for many (past the switch to a set)', () => {
    for (const people of [3, 200]) {
      const audit: NewAudit = {
        eventIdentification: { eventDateTime: new Date('2026-11-23T10:00:00Z') },
        // Every user twice, and each user's ID also as a network access point: the same value under another kind stays.
        activeParticipant: Array.from({ length: 2 * people }, (_, i) => ({ userID: `u${i % people}`, networkAccessPointID: `u${i % people}` })),
        participantObjectIdentification: [{ participantObjectID: 'PT-1', participantObjectDetail: [{ type: 'MSH-10', value: 'x' }, { type: 'MSH-10', value: 'x' }] }],
      };
      const expected = [
        ...Array.from({ length: people }, (_, i) => [{ kind: TERM.userID, value: `u${i}` }, { kind: TERM.networkAccessPointID, value: `u${i}` }]).flat(),
        { kind: TERM.participantObjectID, value: 'PT-1' },
        { kind: TERM.detailType, value: 'MSH-10' },
        { kind: TERM.detailValue, value: 'x' },
      ];
      expect(encodeAudit(audit).terms, `${people} people`).toEqual(expected);
    }
  });
});
