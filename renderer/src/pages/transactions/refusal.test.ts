import { describe, expect, it } from 'vitest';
import { receiverRefusal, refusalSentence } from './refusal';

describe("an HL7 receiver's refusal on the summary", () => {
  it('reads the stored reason of a negative ACK', () => {
    expect(receiverRefusal({ reason: 'AE: Unknown patient' })).toEqual({ code: 'AE', meaning: 'application error', text: 'Unknown patient' });
    expect(receiverRefusal({ reason: 'CR' })).toEqual({ code: 'CR', meaning: 'commit rejected' });
  });

  it("is not Junction's own failure, nor an HTTP error", () => {
    expect(receiverRefusal({ reason: 'AR: route lab failed', error: { message: 'route lab could not be reached' } })).toBeNull();
    expect(receiverRefusal({ reason: '500: database is locked' })).toBeNull();
    expect(receiverRefusal({ reason: 'AEGIS: down' })).toBeNull();
    expect(receiverRefusal({})).toBeNull();
  });

  it('names the route that refused', () => {
    const refusal = receiverRefusal({ reason: 'AE: Unknown patient' });
    if (refusal === null) throw new Error('no refusal');
    expect(refusalSentence(refusal, 'Lab')).toBe('The receiving system (route Lab) refused it: AE (application error) — Unknown patient');
    expect(refusalSentence({ code: 'AR', meaning: 'rejected' }, undefined)).toBe('The receiving system refused it: AR (rejected)');
  });
});
