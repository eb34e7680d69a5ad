/** The audit events Junction emits about itself (OPENHIM-FACTS 5.6), and the refused-client summaries. */
import { hostname } from 'node:os';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { applicationActivityEvent, auditLogUsedEvent, mediatorRegistrationEvent, nodeAuthenticationEvent, userLoginEvent } from '../../service/audit/events.js';
import { AuditRecorder } from '../../service/audit/recorder.js';
import { RefusedNodeAudit } from '../../service/audit/refused-nodes.js';
import type { NewAudit } from '../../service/storage/audits.js';

const AT = new Date('2026-01-02T03:04:05Z');
const DCM = 'DCM';

describe('emitted audit events', () => {
  it('node authentication: Security Alert / Node Authentication, outcome 4, the client address as a Node ID', () => {
    const event = nodeAuthenticationEvent({ address: '10.1.2.3', channels: ['lab'], reason: 'not allowed', attempts: 1, from: AT, to: AT, auditSourceID: 'Junction' });
    expect(event.eventIdentification).toEqual({
      eventDateTime: AT,
      eventOutcomeIndicator: '4',
      eventActionCode: 'E',
      eventID: { code: '110113', displayName: 'Security Alert', codeSystemName: DCM },
      eventTypeCode: { code: '110126', displayName: 'Node Authentication', codeSystemName: DCM },
    });
    expect(event.auditSourceIdentification?.auditSourceTypeCode?.code).toBe('3');
    expect(event.activeParticipant).toEqual([expect.objectContaining({ userID: 'Junction', userIsRequestor: 'false', networkAccessPointID: hostname(), roleIDCode: { code: '110150', displayName: 'Application', codeSystemName: DCM } })]);
    const object = event.participantObjectIdentification[0];
    expect(object).toMatchObject({ participantObjectID: '10.1.2.3', participantObjectTypeCode: '2', participantObjectIDTypeCode: { code: '110182', displayName: 'Node ID', codeSystemName: DCM } });
    expect(object?.participantObjectDetail).toEqual([
      { type: 'reason', value: 'not allowed' },
      { type: 'channel', value: 'lab' },
      { type: 'attempts', value: '1' },
    ]);
  });

  it('a node authentication summary names its window', () => {
    const to = new Date(AT.getTime() + 60_000);
    const event = nodeAuthenticationEvent({ address: '10.1.2.3', channels: ['lab', 'ward'], reason: 'r', attempts: 7, from: AT, to, auditSourceID: 'J' });
    expect(event.eventIdentification.eventDateTime).toEqual(to);
    expect(event.participantObjectIdentification[0]?.participantObjectDetail).toEqual([
      { type: 'reason', value: 'r' },
      { type: 'channel', value: 'lab,ward' },
      { type: 'attempts', value: '7' },
      { type: 'from', value: AT.toISOString() },
      { type: 'to', value: to.toISOString() },
    ]);
  });

  it('mediator registration: Application Start with the mediator as the system at its first endpoint\'s host', () => {
    const event = mediatorRegistrationEvent({ name: 'Lab mediator', urn: 'urn:mediator:lab', version: '1.0.0', host: 'lab.local', by: 'root@openhim.org', auditSourceID: 'Junction', at: AT });
    expect(event.eventIdentification).toMatchObject({ eventOutcomeIndicator: '0', eventID: { code: '110100', displayName: 'Application Activity' }, eventTypeCode: { code: '110120', displayName: 'Application Start' } });
    expect(event.activeParticipant).toEqual([
      { userID: 'Lab mediator', userIsRequestor: 'false', networkAccessPointID: 'lab.local', networkAccessPointTypeCode: '1', roleIDCode: { code: '110150', displayName: 'Application', codeSystemName: DCM } },
      { userID: 'root@openhim.org', userIsRequestor: 'true', roleIDCode: { code: '110151', displayName: 'Application Launcher', codeSystemName: DCM } },
    ]);
    expect(event.auditSourceIdentification).toEqual({ auditSourceID: 'Junction', auditSourceTypeCode: expect.objectContaining({ code: '3' }) as unknown });
    expect(event.participantObjectIdentification[0]?.participantObjectDetail).toEqual([
      { type: 'urn', value: 'urn:mediator:lab' },
      { type: 'version', value: '1.0.0' },
    ]);
  });

  it('application start and stop: Junction as the system, launched by system, source a web server', () => {
    const start = applicationActivityEvent('start', 'Junction', AT);
    const stop = applicationActivityEvent('stop', 'Junction', AT);
    expect(start.eventIdentification.eventTypeCode?.code).toBe('110120');
    expect(stop.eventIdentification.eventTypeCode?.code).toBe('110121');
    expect(start.activeParticipant.map((p) => [p.userID, p.roleIDCode?.code])).toEqual([
      ['Junction', '110150'],
      ['system', '110151'],
    ]);
    expect(start.activeParticipant[0]?.alternativeUserID).toBe(String(process.pid));
    expect(start.participantObjectIdentification).toEqual([]);
  });

  it('login: UserAuthenticated / Login, source the user interface', () => {
    const event = userLoginEvent({ username: 'a@b.c', address: '127.0.0.1', method: 'basic', success: false, reason: 'wrong password', auditSourceID: 'J', at: AT });
    expect(event.eventIdentification).toMatchObject({ eventOutcomeIndicator: '4', eventID: { code: '110114' }, eventTypeCode: { code: '110122' } });
    expect(event.auditSourceIdentification?.auditSourceTypeCode?.code).toBe('1');
  });

  it('audit log used: action R, the URI as a security resource, the user with their groups and the count', () => {
    const event = auditLogUsedEvent({ user: { email: 'a@b.c', groups: ['admin', 'audit'] }, address: '10.0.0.9', uri: 'https://h:8080/audits?filterRepresentation=full', outcome: '0', count: 3, ids: ['x', 'y', 'z'], auditSourceID: 'J', at: AT });
    expect(event.eventIdentification).toEqual({ eventDateTime: AT, eventOutcomeIndicator: '0', eventActionCode: 'R', eventID: { code: '110101', displayName: 'Audit Log Used', codeSystemName: DCM } });
    expect(event.activeParticipant[1]).toEqual({ userID: 'a@b.c', userIsRequestor: 'true', networkAccessPointID: '10.0.0.9', networkAccessPointTypeCode: '2', roleIDCode: { code: 'admin,audit', displayName: 'admin,audit' } });
    expect(event.participantObjectIdentification).toEqual([
      {
        participantObjectID: 'https://h:8080/audits?filterRepresentation=full',
        participantObjectTypeCode: '2',
        participantObjectTypeCodeRole: '13',
        participantObjectIDTypeCode: { code: '12', displayName: 'URI', codeSystemName: 'RFC-3881' },
        participantObjectName: 'Security Audit Log',
        participantObjectDetail: [
          { type: 'count', value: '3' },
          { type: 'ids', value: 'x,y,z' },
        ],
      },
    ]);
  });
});

describe('refused-client summaries', () => {
  function setup() {
    const written: NewAudit[] = [];
    let now = AT.getTime();
    const recorder = new AuditRecorder({ audits: { add: async (audit) => written.push(audit) }, logger: pino({ level: 'silent' }), auditSourceID: 'J' });
    const audit = new RefusedNodeAudit({ audit: recorder, windowSeconds: 60, now: () => now, maxOpenWindows: 2 });
    const attempts = (event: NewAudit) => event.participantObjectIdentification[0]?.participantObjectDetail?.find((d) => d.type === 'attempts')?.value;
    return { written, audit, attempts, advance: (ms: number) => (now += ms) };
  }

  it('records the first refusal at once, counts the rest and writes one summary when the window ends', async () => {
    const { written, audit, attempts, advance } = setup();
    await audit.refused({ address: '10.0.0.1', channel: 'lab', reason: 'not allowed' });
    expect(written.map(attempts)).toEqual(['1']);
    for (let i = 0; i < 500; i++) {
      advance(10);
      await audit.refused({ address: '10.0.0.1', channel: i % 2 === 0 ? 'lab' : 'ward', reason: 'not allowed' });
    }
    expect(written).toHaveLength(1);
    advance(60_000);
    await audit.flushEnded();
    expect(written.map(attempts)).toEqual(['1', '500']);
    const summary = written[1]?.participantObjectIdentification[0]?.participantObjectDetail;
    expect(summary?.find((d) => d.type === 'channel')?.value).toBe('lab,ward');
    // A new window after the old one ends.
    await audit.refused({ address: '10.0.0.1', channel: 'lab', reason: 'not allowed' });
    expect(written).toHaveLength(3);
  });

  it('keeps addresses apart, bounds the open windows and writes what is left at stop', async () => {
    const { written, audit, attempts } = setup();
    for (const address of ['a', 'b']) {
      await audit.refused({ address, channel: 'c', reason: 'r' });
      await audit.refused({ address, channel: 'c', reason: 'r' });
    }
    expect(written.map(attempts)).toEqual(['1', '1']);
    // A third address pushes out the oldest window, whose count is written early.
    await audit.refused({ address: 'c', channel: 'c', reason: 'r' });
    expect(written.map((e) => [e.participantObjectIdentification[0]?.participantObjectID, attempts(e)])).toEqual([
      ['a', '1'],
      ['b', '1'],
      ['a', '1'],
      ['c', '1'],
    ]);
    await audit.flushAll();
    expect(written.map((e) => [e.participantObjectIdentification[0]?.participantObjectID, attempts(e)]).slice(4)).toEqual([['b', '1']]);
    await audit.flushAll();
    expect(written).toHaveLength(5);
  });
});
