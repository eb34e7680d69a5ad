/** Audit records as the console reads them: codes in words, the row's user and object, the raw message's parts. */
import { describe, expect, it } from 'vitest';
import type { Audit } from '../../../../service/contracts/audits';
import { actionText, codeText, decodeQuery, isMalformed, mainObject, outcomeText, requestor, splitRawMessage } from './audit-view';

describe('audit view', () => {
  it('puts outcomes and actions in words with their codes', () => {
    expect(outcomeText('0')).toBe('Success (0)');
    expect(outcomeText('12')).toBe('Major failure (12)');
    expect(outcomeText('7')).toBe('7');
    expect(outcomeText(undefined)).toBe('–');
    expect(actionText('E')).toBe('Execute (E)');
    expect(actionText('Z')).toBe('Z');
  });

  it('names a code by its display name and code', () => {
    expect(codeText({ code: '110114', displayName: 'UserAuthenticated' })).toBe('UserAuthenticated (110114)');
    expect(codeText({ code: '110114' })).toBe('110114');
    expect(codeText(undefined)).toBe('–');
  });

  it('tells a raw-only audit from a parsed one', () => {
    const raw: Audit = { _id: 'a', rawMessage: '<85>1 - - - - - - not xml', eventIdentification: { eventDateTime: '2026-11-24T10:00:00Z' }, activeParticipant: [], participantObjectIdentification: [] };
    expect(isMalformed(raw)).toBe(true);
    expect(isMalformed({ ...raw, eventIdentification: { ...raw.eventIdentification, eventID: { code: '110110' } } })).toBe(false);
  });

  it('finds the requesting user and the patient', () => {
    expect(requestor([{ userID: 'system', userIsRequestor: 'false' }, { userID: 'nurse', userIsRequestor: 'true' }])?.userID).toBe('nurse');
    expect(requestor([{ userID: 'system' }])).toBeUndefined();
    const objects = [
      { participantObjectID: 'query-1', participantObjectTypeCode: '2', participantObjectTypeCodeRole: '24' },
      { participantObjectID: '123^^^&1.2.3&ISO', participantObjectTypeCode: '1', participantObjectTypeCodeRole: '1' },
    ];
    expect(mainObject(objects)?.participantObjectID).toBe('123^^^&1.2.3&ISO');
    expect(mainObject(objects.slice(0, 1))?.participantObjectID).toBe('query-1');
    expect(mainObject([])).toBeUndefined();
  });

  it('splits the syslog header from the XML', () => {
    const raw = '<85>1 2026-11-24T10:00:00Z host app 12 IHE+RFC-3881 - <?xml version="1.0"?><AuditMessage/>';
    expect(splitRawMessage(raw)).toEqual({ header: '<85>1 2026-11-24T10:00:00Z host app 12 IHE+RFC-3881 -', body: '<?xml version="1.0"?><AuditMessage/>' });
    expect(splitRawMessage('<13>Nov 24 10:00:00 host app: <AuditMessage/>').body).toBe('<AuditMessage/>');
    expect(splitRawMessage('<85>1 - - - - - no xml here')).toEqual({ header: '', body: '<85>1 - - - - - no xml here' });
  });

  it('reads a base64 query as text, and only that', () => {
    expect(decodeQuery(btoa('family=Smith&given=Ann'))).toBe('family=Smith&given=Ann');
    expect(decodeQuery('not base64!')).toBeNull();
    expect(decodeQuery(btoa('\u0000\u0001\u0002x'))).toBeNull();
    expect(decodeQuery(undefined)).toBeNull();
  });
});
