/** Reading a test Junction's own audit events back, shaped for assertions. */
import type { TestJunction } from './junction.js';

/** The login events (EventID 110114) stored so far: who, the outcome, and the method named in the details. */
export async function loginEvents(t: TestJunction): Promise<{ user: string | undefined; outcome: string | undefined; method: string | undefined }[]> {
  const audits = await t.junction.audits.page({ codes: [{ field: 'eventID', code: '110114' }] }, { skip: 0, limit: 10_000 });
  return audits.map((a) => ({
    user: a.activeParticipant[0]?.userID,
    outcome: a.eventIdentification.eventOutcomeIndicator,
    method: a.participantObjectIdentification[0]?.participantObjectDetail?.find((d) => d.type === 'method')?.value,
  }));
}
