/**
 * The audit log contract: what a caller of `AuditLog` can observe, which every engine (SQLite today, PostgreSQL
 * later) must show. It uses service/storage/audits.ts only; an engine's own layout (files, query plans) is tested
 * beside the engine.
 *
 * Usage: `describeAuditLogContract('SQLite', openFixture)` from a `*.test.ts` file, where `openFixture` follows
 * `OpenAuditLogFixture` below.
 */
import { encodeAudit } from '../../service/storage/audit-rows.js';
import type { EncodedAudit } from '../../service/storage/audit-rows.js';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../service/storage/store.js';
import { OBJECT_ID } from '../../service/storage/object-ids.js';
import type { AuditFilter, AuditLog, AuditRecord, NewAudit } from '../../service/storage/audits.js';

/** One audit log under test. */
export interface AuditLogFixture {
  /** A log that has NOT been opened yet: the suite calls `open()` itself. */
  log: AuditLog;
  /** Where the data lives; pass it back to the factory to reopen the same data. */
  location: string;
  /** Deletes the data at `location`; the suite closes every log first. Must tolerate data that is already gone. */
  cleanup: () => Promise<void>;
}

/** Creates a log object: over a new, empty location, or over the data at `location`. */
export type OpenAuditLogFixture = (location?: string) => Promise<AuditLogFixture>;

const BASE = Date.parse('2024-06-01T00:00:00Z');

/** A login-like audit at `BASE + seconds`, with the given parts replaced. */
export function audit(seconds: number, overrides: Partial<NewAudit> = {}): NewAudit {
  return {
    eventIdentification: {
      eventDateTime: new Date(BASE + seconds * 1000),
      eventOutcomeIndicator: '0',
      eventActionCode: 'E',
      eventID: { code: '110114', displayName: 'UserAuthenticated', codeSystemName: 'DCM' },
      eventTypeCode: { code: '110122', displayName: 'Login', codeSystemName: 'DCM' },
    },
    activeParticipant: [{ userID: 'alice', userIsRequestor: 'true', networkAccessPointID: '10.0.0.1', networkAccessPointTypeCode: '2', roleIDCode: { code: 'doctor', codeSystemName: 'roles' } }],
    auditSourceIdentification: { auditSourceID: 'openhim' },
    participantObjectIdentification: [],
    ...overrides,
  };
}

/** Pools the generated audits draw from, small so that every filter matches some and misses others. */
const USERS = ['alice', 'bob', 'carol', 'dave'];
const PATIENTS = ['1234^^^&1.2.3&ISO', '1299^^^&1.2.3&ISO', '5678^^^&9.9&ISO', 'abc-1^^^&1.2.3&ISO'];
const EVENTS = [
  { code: '110110', displayName: 'Patient Record', codeSystemName: 'DCM' },
  { code: '110112', displayName: 'Query', codeSystemName: 'DCM' },
  { code: '110114', displayName: 'UserAuthenticated', codeSystemName: 'DCM' },
];
const TYPES = [
  { code: 'ITI-9', displayName: 'PIX Query', codeSystemName: 'IHE Transactions' },
  { code: 'ITI-18', displayName: 'Registry Stored Query', codeSystemName: 'IHE Transactions' },
  { code: '110122', displayName: 'Login', codeSystemName: 'DCM' },
];

/** The i-th generated audit: every field cycles through its pool at a different pace. Times repeat, so ties occur. */
function varied(i: number): NewAudit {
  const pick = <T>(pool: readonly T[], step: number): T => pool[Math.floor(i / step) % pool.length] as T;
  const objects = i % 5 === 0 ? [] : [
    { participantObjectID: pick(PATIENTS, 1), participantObjectTypeCode: '1', participantObjectIDTypeCode: { code: '2', displayName: 'Patient Number', codeSystemName: 'RFC-3881' }, participantObjectDetail: [{ type: 'MSH-10', value: `msg-${i % 7}` }] },
    ...(i % 3 === 0 ? [{ participantObjectID: pick(PATIENTS, 2), participantObjectIDTypeCode: { code: 'ITI-18', codeSystemName: 'IHE Transactions' } }] : []),
  ];
  return {
    eventIdentification: {
      eventDateTime: new Date(BASE + Math.floor(i / 2) * 60_000),
      eventOutcomeIndicator: pick(['0', '0', '4', '8'], 1),
      eventActionCode: pick(['E', 'R', 'C'], 2),
      eventID: pick(EVENTS, 1),
      eventTypeCode: pick(TYPES, 3),
    },
    activeParticipant: [
      { userID: pick(USERS, 1), alternativeUserID: `alt-${i % 3}`, userIsRequestor: 'true', networkAccessPointID: pick(['10.0.0.1', '10.0.0.2'], 4), roleIDCode: { code: pick(['doctor', 'nurse'], 1), codeSystemName: 'roles', displayName: 'Role' } },
      ...(i % 4 === 0 ? [{ userID: 'system', userIsRequestor: 'false', roleIDCode: { code: '110150', codeSystemName: 'DCM', displayName: 'Application' } }] : []),
    ],
    auditSourceIdentification: { auditSourceID: pick(['openhim', 'lab', 'pacs'], 5) },
    participantObjectIdentification: objects,
  };
}

/** The filter's meaning, written plainly over records in memory: what every engine must answer. */
function matches(record: AuditRecord, filter: AuditFilter): boolean {
  const event = record.eventIdentification;
  const t = event.eventDateTime.getTime();
  if (filter.from !== undefined && t < filter.from.getTime()) return false;
  if (filter.to !== undefined && t > filter.to.getTime()) return false;
  if (filter.eventActionCode !== undefined && event.eventActionCode !== filter.eventActionCode) return false;
  if (filter.eventOutcomeIndicator !== undefined && event.eventOutcomeIndicator !== filter.eventOutcomeIndicator) return false;
  if (filter.auditSourceID !== undefined && record.auditSourceIdentification?.auditSourceID !== filter.auditSourceID) return false;
  const participants = record.activeParticipant;
  const objects = record.participantObjectIdentification;
  if (filter.userID !== undefined && !participants.some((p) => p.userID === filter.userID)) return false;
  if (filter.alternativeUserID !== undefined && !participants.some((p) => p.alternativeUserID === filter.alternativeUserID)) return false;
  if (filter.networkAccessPointID !== undefined && !participants.some((p) => p.networkAccessPointID === filter.networkAccessPointID)) return false;
  const details = objects.flatMap((o) => o.participantObjectDetail ?? []);
  if (filter.participantObjectDetailType !== undefined && !details.some((d) => d.type === filter.participantObjectDetailType)) return false;
  if (filter.participantObjectDetailValue !== undefined && !details.some((d) => d.value === filter.participantObjectDetailValue)) return false;
  for (const match of filter.codes ?? []) {
    const codes =
      match.field === 'eventID' ? [event.eventID]
      : match.field === 'eventTypeCode' ? [event.eventTypeCode]
      : match.field === 'roleIDCode' ? participants.map((p) => p.roleIDCode)
      : objects.map((o) => o.participantObjectIDTypeCode);
    for (const part of ['code', 'codeSystemName', 'displayName'] as const) {
      if (match[part] !== undefined && !codes.some((c) => c?.[part] === match[part])) return false;
    }
  }
  for (const match of filter.participantObjectID ?? []) {
    const re = match.pattern === undefined ? null : new RegExp(match.pattern);
    if (!objects.some((o) => typeof o.participantObjectID === 'string' && o.participantObjectID.startsWith(match.prefix) && (re === null || re.test(o.participantObjectID)))) return false;
  }
  return true;
}

function newestFirst(a: AuditRecord, b: AuditRecord): number {
  return b.eventIdentification.eventDateTime.getTime() - a.eventIdentification.eventDateTime.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);
}

const FILTERS: [string, AuditFilter][] = [
  ['nothing', {}],
  ['a time range (inclusive)', { from: new Date(BASE + 10 * 60_000), to: new Date(BASE + 30 * 60_000) }],
  ['an event ID', { codes: [{ field: 'eventID', code: '110112' }] }],
  ['an event ID with its system and name', { codes: [{ field: 'eventID', code: '110110', codeSystemName: 'DCM', displayName: 'Patient Record' }] }],
  ['an event ID whose name differs', { codes: [{ field: 'eventID', code: '110110', displayName: 'Query' }] }],
  ['an event type by its system only', { codes: [{ field: 'eventTypeCode', codeSystemName: 'IHE Transactions' }] }],
  ['an event type and an event ID', { codes: [{ field: 'eventTypeCode', code: 'ITI-18' }, { field: 'eventID', code: '110112' }] }],
  ['a participant role', { codes: [{ field: 'roleIDCode', code: '110150' }] }],
  ['a participant role by name', { codes: [{ field: 'roleIDCode', displayName: 'Application' }] }],
  ['an object ID type', { codes: [{ field: 'participantObjectIDTypeCode', code: 'ITI-18', codeSystemName: 'IHE Transactions' }] }],
  ['an action', { eventActionCode: 'R' }],
  ['an outcome', { eventOutcomeIndicator: '4' }],
  ['an outcome, an action and a source', { eventOutcomeIndicator: '0', eventActionCode: 'E', auditSourceID: 'lab' }],
  ['an audit source', { auditSourceID: 'pacs' }],
  ['a user', { userID: 'bob' }],
  ['a user in a time range', { userID: 'carol', from: new Date(BASE + 5 * 60_000), to: new Date(BASE + 40 * 60_000) }],
  ['two users of one audit', { userID: 'alice', alternativeUserID: 'alt-0' }],
  ['a network access point and an outcome', { networkAccessPointID: '10.0.0.2', eventOutcomeIndicator: '8' }],
  ['an object detail', { participantObjectDetailType: 'MSH-10', participantObjectDetailValue: 'msg-3' }],
  ['a patient by prefix', { participantObjectID: [{ prefix: '12' }] }],
  ['a patient by prefix and pattern', { participantObjectID: [{ prefix: '1234', pattern: '^1234\\^\\^\\^&1\\.2\\.3&.*' }] }],
  ['a short prefix and a pattern', { participantObjectID: [{ prefix: '1', pattern: '&1\\.2\\.3&' }] }],
  ['an empty prefix and a pattern', { participantObjectID: [{ prefix: '', pattern: '^abc-\\d' }] }],
  ['two object ID matches (the console\'s AND form)', { participantObjectID: [{ prefix: '1234^^^' }, { prefix: '', pattern: '5678' }] }],
  ['a patient and a user', { participantObjectID: [{ prefix: '5678^^^' }], userID: 'alice' }],
  ['a patient and an event', { participantObjectID: [{ prefix: '1299', pattern: '\\^\\^\\^' }], codes: [{ field: 'eventID', code: '110112' }] }],
  ['a value no audit has', { userID: 'nobody' }],
];

export function describeAuditLogContract(engine: string, openFixture: OpenAuditLogFixture): void {
  describe(`audit log contract: ${engine}`, () => {
    const fixtures: AuditLogFixture[] = [];

    afterEach(async () => {
      for (const f of fixtures) await f.log.close();
      for (const f of fixtures.splice(0)) await f.cleanup();
    });

    async function open(location?: string): Promise<AuditLog> {
      const fixture = await openFixture(location);
      fixtures.push(fixture);
      await fixture.log.open();
      return fixture.log;
    }

    async function openWithLocation(): Promise<{ log: AuditLog; location: string }> {
      const log = await open();
      return { log, location: (fixtures.at(-1) as AuditLogFixture).location };
    }

    it('adds an audit with a new 24-hex id and reads it back whole, after a reopen too', async () => {
      const { log, location } = await openWithLocation();
      const stored = await log.add(audit(1, { rawMessage: '<85>1 ... <AuditMessage/>', syslog: { prival: 85, facility: 'sec', severity: 'notice', type: 'RFC5424' } }));
      expect(stored._id).toMatch(OBJECT_ID);
      const expected = { ...audit(1, { rawMessage: '<85>1 ... <AuditMessage/>', syslog: { prival: 85, facility: 'sec', severity: 'notice', type: 'RFC5424' } }), _id: stored._id };
      expect(await log.get(stored._id)).toEqual(expected);
      expect((await log.get(stored._id))?.eventIdentification.eventDateTime).toBeInstanceOf(Date);
      expect(await log.get('0123456789abcdef01234567')).toBeNull();
      expect(await log.get('not an id')).toBeNull();
      await log.close();
      const again = await open(location);
      expect(await again.get(stored._id)).toEqual(expected);
    });

    it('stores an audit encoded elsewhere (the parse worker) as it stores the audit itself, filters and codes included', async () => {
      const log = await open();
      const original = audit(2, { participantObjectIdentification: [{ participantObjectID: 'PT-77', participantObjectIDTypeCode: { code: 'MRN', codeSystemName: 'local' } }] });
      // Through JSON, as it crosses from the worker.
      const id = await log.addEncoded(JSON.parse(JSON.stringify(encodeAudit(original))) as EncodedAudit);
      expect(id).toMatch(OBJECT_ID);
      expect(await log.get(id)).toEqual({ ...original, _id: id });
      expect((await log.page({ participantObjectID: [{ prefix: 'PT-77' }] }, { skip: 0, limit: 10 })).map((a) => a._id)).toEqual([id]);
      expect((await log.codesSeen()).participantObjectIDTypeCode).toContainEqual({ code: 'MRN', codeSystemName: 'local' });
      await expect(log.addEncoded({ columns: { doc: '{}' }, terms: [], codes: [] } as unknown as EncodedAudit)).rejects.toThrow(/finite ts/);
    });

    it('gives every audit its own id, and every add of one turn settles stored', async () => {
      const log = await open();
      const added = await Promise.all(Array.from({ length: 300 }, (_, i) => log.add(audit(i % 10))));
      expect(new Set(added.map((a) => a._id)).size).toBe(300);
      expect(await log.page({}, { skip: 0, limit: 1000 })).toHaveLength(300);
    });

    it('refuses an audit without a valid event time, storing nothing of it, and keeps storing the others', async () => {
      const log = await open();
      const bad = audit(1);
      (bad.eventIdentification as { eventDateTime: unknown }).eventDateTime = new Date(Number.NaN);
      const missing = { ...audit(2), eventIdentification: {} } as unknown as NewAudit;
      const results = await Promise.allSettled([log.add(audit(3)), log.add(bad), log.add(missing), log.add(audit(4))]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
      expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(StoreError);
      expect(await log.page({}, { skip: 0, limit: 10 })).toHaveLength(2);
    });

    it('pages newest first by event time, ties newest id first, with skip and limit', async () => {
      const log = await open();
      const added: AuditRecord[] = [];
      for (let i = 0; i < 40; i++) added.push(await log.add(varied(i)));
      const expected = [...added].sort(newestFirst).map((a) => a._id);
      expect((await log.page({}, { skip: 0, limit: 100 })).map((a) => a._id)).toEqual(expected);
      expect((await log.page({}, { skip: 7, limit: 5 })).map((a) => a._id)).toEqual(expected.slice(7, 12));
      expect(await log.page({}, { skip: 40, limit: 5 })).toEqual([]);
    });

    it('answers every console filter as its plain meaning over the records, paged and streamed', async () => {
      const log = await open();
      const added: AuditRecord[] = [];
      for (let i = 0; i < 120; i++) added.push(await log.add(varied(i)));
      const sorted = [...added].sort(newestFirst);
      for (const [name, filter] of FILTERS) {
        const expected = sorted.filter((a) => matches(a, filter)).map((a) => a._id);
        if (name !== 'a value no audit has' && name !== 'an event ID whose name differs') expect(expected.length, name).toBeGreaterThan(0);
        if (name !== 'nothing') expect(expected.length, name).toBeLessThan(added.length);
        expect((await log.page(filter, { skip: 0, limit: 500 })).map((a) => a._id), name).toEqual(expected);
        expect((await log.page(filter, { skip: 2, limit: 3 })).map((a) => a._id), name).toEqual(expected.slice(2, 5));
        const streamed: string[] = [];
        for await (const record of log.stream(filter)) streamed.push(record._id);
        expect(streamed, name).toEqual(expected);
      }
    });

    it('streams more audits than one batch holds, newest first, each once', async () => {
      const log = await open();
      await Promise.all(Array.from({ length: 1300 }, (_, i) => log.add(audit(i % 97, { activeParticipant: [{ userID: i % 2 === 0 ? 'even' : 'odd' }] }))));
      const streamed: AuditRecord[] = [];
      for await (const record of log.stream({ userID: 'even' })) streamed.push(record);
      expect(streamed).toHaveLength(650);
      expect(new Set(streamed.map((a) => a._id)).size).toBe(650);
      expect(streamed.map((a) => a._id)).toEqual([...streamed].sort(newestFirst).map((a) => a._id));
      let all = 0;
      for await (const _ of log.stream({})) all++;
      expect(all).toBe(1300);
    });

    it('matches nothing for a pattern it refuses, and refuses malformed filters and paging', async () => {
      const log = await open();
      await log.add(audit(1, { participantObjectIdentification: [{ participantObjectID: 'abc' }] }));
      expect(await log.page({ participantObjectID: [{ prefix: '', pattern: '(a' }] }, { skip: 0, limit: 10 })).toEqual([]);
      expect(await log.page({ participantObjectID: [{ prefix: '', pattern: 'b' }] }, { skip: 0, limit: 10 })).toHaveLength(1);
      await expect(log.page({ userID: 5 as unknown as string }, { skip: 0, limit: 10 })).rejects.toBeInstanceOf(StoreError);
      await expect(log.page({ from: new Date('nonsense') }, { skip: 0, limit: 10 })).rejects.toBeInstanceOf(StoreError);
      await expect(log.page({ codes: [{ field: 'eventID' }] }, { skip: 0, limit: 10 })).rejects.toBeInstanceOf(StoreError);
      await expect(log.page({ codes: [{ field: 'rawMessage' as 'eventID', code: 'x' }] }, { skip: 0, limit: 10 })).rejects.toBeInstanceOf(StoreError);
      await expect(log.page({}, { skip: 0, limit: 0 })).rejects.toBeInstanceOf(StoreError);
      await expect(log.page({}, { skip: -1, limit: 5 })).rejects.toBeInstanceOf(StoreError);
    });

    it('lists the distinct codes seen, first display name kept, across a reopen', async () => {
      const { log, location } = await openWithLocation();
      await log.add(varied(0));
      await log.add(audit(2, { eventIdentification: { eventDateTime: new Date(BASE), eventID: { code: '110110', displayName: 'A later name', codeSystemName: 'DCM' } } }));
      await log.add(audit(3, { auditSourceIdentification: { auditSourceID: 'lab' } }));
      await log.add(audit(4, { participantObjectIdentification: [{ participantObjectID: 'x', participantObjectIDTypeCode: { code: 'ITI-18', codeSystemName: 'IHE Transactions' } }] }));
      await log.close();
      const again = await open(location);
      const seen = await again.codesSeen();
      expect(seen.eventID).toEqual([EVENTS[0], EVENTS[2]]);
      expect(seen.eventType).toEqual([TYPES[0], TYPES[2]]);
      expect(seen.activeParticipantRoleID).toEqual([
        { code: 'doctor', codeSystemName: 'roles', displayName: 'Role' },
        { code: '110150', codeSystemName: 'DCM', displayName: 'Application' },
      ]);
      expect(seen.participantObjectIDTypeCode).toEqual([{ code: 'ITI-18', codeSystemName: 'IHE Transactions' }]);
      expect(seen.auditSourceID).toEqual(['openhim', 'lab']);
    });

    it('starts with no codes seen and adds none for a refused audit', async () => {
      const log = await open();
      const bad = audit(1, { auditSourceIdentification: { auditSourceID: 'never' } });
      (bad.eventIdentification as { eventDateTime: unknown }).eventDateTime = 'yesterday';
      await expect(log.add(bad)).rejects.toBeInstanceOf(StoreError);
      expect(await log.codesSeen()).toEqual({ eventType: [], eventID: [], activeParticipantRoleID: [], participantObjectIDTypeCode: [], auditSourceID: [] });
    });

    it('drops the oldest audits before a cutoff in batches, never a newer one, and forgets their participants', async () => {
      const log = await open();
      const added: AuditRecord[] = [];
      // Two audits a minute, so the cutoff and the batch edges fall between audits of the same time.
      for (let i = 0; i < 30; i++) added.push(await log.add(varied(i)));
      const cutoff = new Date(BASE + 10 * 60_000);
      const older = added.filter((a) => a.eventIdentification.eventDateTime < cutoff).sort((a, b) => -newestFirst(a, b));
      expect(older).toHaveLength(20);
      expect(await log.dropBefore(cutoff, 7)).toBe(7);
      const left = (await log.page({}, { skip: 0, limit: 100 })).map((a) => a._id);
      expect(left).toHaveLength(23);
      for (const gone of older.slice(0, 7)) expect(left).not.toContain(gone._id);
      expect(await log.dropBefore(cutoff, 7)).toBe(7);
      expect(await log.dropBefore(cutoff, 7)).toBe(6);
      expect(await log.dropBefore(cutoff, 7)).toBe(0);
      const kept = await log.page({}, { skip: 0, limit: 100 });
      expect(kept.map((a) => a._id).sort()).toEqual(added.filter((a) => a.eventIdentification.eventDateTime >= cutoff).map((a) => a._id).sort());
      // The participants and objects of dropped audits no longer match.
      for (const user of USERS) expect((await log.page({ userID: user }, { skip: 0, limit: 100 })).every((a) => a.eventIdentification.eventDateTime >= cutoff)).toBe(true);
      expect((await log.page({ participantObjectID: [{ prefix: '1234' }] }, { skip: 0, limit: 100 })).every((a) => a.eventIdentification.eventDateTime >= cutoff)).toBe(true);
      await expect(log.dropBefore(cutoff, 0)).rejects.toBeInstanceOf(StoreError);
      await expect(log.dropBefore(new Date(Number.NaN), 5)).rejects.toBeInstanceOf(StoreError);
    });

    it('restores an audit under its own id once, found by every filter as an added one', async () => {
      const log = await open();
      const record: AuditRecord = { ...varied(3), _id: 'aaaaaaaaaaaaaaaa' };
      expect(await log.restore(record)).toBe(true);
      expect(await log.restore({ ...record, auditSourceIdentification: { auditSourceID: 'changed' } })).toBe(false);
      expect(await log.get('aaaaaaaaaaaaaaaa')).toEqual(record);
      expect((await log.page({ userID: 'dave' }, { skip: 0, limit: 5 })).map((a) => a._id)).toEqual(['aaaaaaaaaaaaaaaa']);
      expect((await log.codesSeen()).eventID).toEqual([EVENTS[0]]);
      await expect(log.restore({ ...record, _id: '' })).rejects.toBeInstanceOf(StoreError);
    });

    it('refuses every call once closed', async () => {
      const log = await open();
      await log.close();
      await expect(log.add(audit(1))).rejects.toBeInstanceOf(StoreError);
      await expect(log.get('0123456789abcdef01234567')).rejects.toBeInstanceOf(StoreError);
      await expect(log.page({}, { skip: 0, limit: 1 })).rejects.toBeInstanceOf(StoreError);
    });
  });
}
