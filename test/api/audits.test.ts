/**
 * The audits API on a real Junction and its real audit log: POST validation, paging and representations, every
 * console filter key, unknown keys and bad JSON refused, the patient ID rules, permissions, the export, the filter
 * options, one Audit Log Used per request, and the node authentication and mediator registration events.
 */
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, ROOT_EMAIL, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import type { Audit, AuditFilterOptions } from '../../service/contracts/audits.js';
import type { AuditFilter, AuditRecord } from '../../service/storage/audits.js';
import { AUDIT_FILTER_KEYS, MAX_AUDIT_PAGE, PATIENT_ID_CHARACTERS } from '../../service/domain/operations/audit-filters.js';

const SOURCE = 'test-source';

/** An audit as the console's model has it, every filterable field set from `tag`. */
function sample(tag: string, at: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    eventIdentification: {
      eventDateTime: at,
      eventOutcomeIndicator: tag === 'a' ? '0' : '4',
      eventActionCode: tag === 'a' ? 'R' : 'E',
      eventID: { code: `id-${tag}`, displayName: `Event ${tag}`, codeSystemName: `sys-${tag}` },
      eventTypeCode: { code: `type-${tag}`, displayName: `Type ${tag}`, codeSystemName: `tsys-${tag}` },
    },
    activeParticipant: [
      { userID: `user-${tag}`, alternativeUserID: `alt-${tag}`, userIsRequestor: 'true', networkAccessPointID: `10.0.0.${tag.charCodeAt(0)}`, networkAccessPointTypeCode: '2', roleIDCode: { code: `role-${tag}`, displayName: `Role ${tag}`, codeSystemName: `rsys-${tag}` } },
    ],
    auditSourceIdentification: { auditSourceID: SOURCE },
    participantObjectIdentification: [
      {
        participantObjectID: `pat-${tag}^^^Clinic&1.2.3&ISO`,
        participantObjectTypeCode: '1',
        participantObjectTypeCodeRole: '1',
        participantObjectIDTypeCode: { code: `obj-${tag}`, displayName: `Obj ${tag}`, codeSystemName: `osys-${tag}` },
        participantObjectDetail: [{ type: `dtype-${tag}`, value: `dvalue-${tag}` }],
      },
    ],
    ...extra,
  };
}

/** For each filter key: the value that finds audit a alone. */
const FOR_A: Record<string, unknown> = {
  'eventIdentification.eventDateTime': JSON.stringify({ $gte: '2024-01-01T00:00:00Z', $lte: '2024-01-01T23:59:59Z' }),
  'participantObjectIdentification.participantObjectID': JSON.stringify('pat-a\\^\\^\\^Clinic&1.2.3&.*'),
  'eventIdentification.eventTypeCode.code': 'type-a',
  'eventIdentification.eventTypeCode.codeSystemName': 'tsys-a',
  'eventIdentification.eventTypeCode.displayName': 'Type a',
  'eventIdentification.eventID.code': 'id-a',
  'eventIdentification.eventID.codeSystemName': 'sys-a',
  'eventIdentification.eventID.displayName': 'Event a',
  'activeParticipant.roleIDCode.code': 'role-a',
  'activeParticipant.roleIDCode.codeSystemName': 'rsys-a',
  'activeParticipant.roleIDCode.displayName': 'Role a',
  'participantObjectIdentification.participantObjectIDTypeCode.code': 'obj-a',
  'participantObjectIdentification.participantObjectIDTypeCode.codeSystemName': 'osys-a',
  'participantObjectIdentification.participantObjectIDTypeCode.displayName': 'Obj a',
  'eventIdentification.eventActionCode': 'R',
  'eventIdentification.eventOutcomeIndicator': '0',
  'activeParticipant.userID': 'user-a',
  'activeParticipant.alternativeUserID': 'alt-a',
  'activeParticipant.networkAccessPointID': '10.0.0.97',
  'participantObjectIdentification.participantObjectDetail.type': 'dtype-a',
  'participantObjectIdentification.participantObjectDetail.value': 'dvalue-a',
  'auditSourceIdentification.auditSourceID': SOURCE,
};

describe('audits API', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let nurse: { authorization: string };

  const get = (path: string, headers: Record<string, string> = admin): Promise<TestResponse> => t.inject(path, { headers });
  const list = (query: Record<string, string>, headers: Record<string, string> = admin) => get(`/audits?${new URLSearchParams(query).toString()}`, headers);
  const post = (json: unknown, headers: Record<string, string> = admin) => t.inject('/audits', { method: 'POST', headers, json });
  /** Audits in the log, read directly (no Audit Log Used). */
  const stored = async (filter: AuditFilter): Promise<AuditRecord[]> => t.junction.audits.page(filter, { skip: 0, limit: 1000 });
  const logUsed = () => stored({ codes: [{ field: 'eventID', code: '110101' }] });

  beforeAll(async () => {
    t = await startJunction();
    admin = { authorization: await unlockRoot(t) };
    const password = 'user-password-123';
    const created = await t.inject('/users', { method: 'POST', headers: admin, json: { email: 'nina@clinic.example', firstname: 'N', surname: 'N', groups: ['nurses'], password } });
    if (created.status !== 201) throw new Error(created.text);
    nurse = { authorization: basic('nina@clinic.example', password) };
    for (const [tag, at] of [['a', '2024-01-01T10:00:00Z'], ['b', '2024-01-02T10:00:00Z'], ['c', '2024-01-03T10:00:00Z']] as const) {
      const res = await post(sample(tag, at));
      if (res.status !== 201) throw new Error(res.text);
    }
  });

  afterAll(async () => {
    await t.destroy();
  });

  describe('POST /audits', () => {
    it('stores an audit in the model shape and answers OpenHIM\'s text', async () => {
      const res = await post(sample('p', '2023-06-01T00:00:00Z'));
      expect(res.status).toBe(201);
      expect(res.text).toBe('Audit successfully created');
      const [record] = await stored({ userID: 'user-p' });
      expect(record?.eventIdentification.eventDateTime).toEqual(new Date('2023-06-01T00:00:00Z'));
      expect(record?.participantObjectIdentification[0]?.participantObjectID).toBe('pat-p^^^Clinic&1.2.3&ISO');
    });

    it('stores the lists empty when they are left out', async () => {
      expect((await post({ eventIdentification: { eventDateTime: '2023-06-02T00:00:00Z', eventID: { code: 'lonely' } } })).status).toBe(201);
      const [record] = await stored({ codes: [{ field: 'eventID', code: 'lonely' }] });
      expect(record?.activeParticipant).toEqual([]);
      expect(record?.participantObjectIdentification).toEqual([]);
    });

    it('refuses a missing event, time or event ID, wrong types and unknown fields, naming the field', async () => {
      const cases: [unknown, string][] = [
        [{}, 'body.eventIdentification'],
        [{ eventIdentification: { eventID: { code: 'x' } } }, 'body.eventIdentification.eventDateTime'],
        [{ eventIdentification: { eventDateTime: '2024-01-01T00:00:00Z' } }, 'body.eventIdentification.eventID'],
        [{ eventIdentification: { eventDateTime: 'yesterday', eventID: { code: 'x' } } }, 'body.eventIdentification.eventDateTime'],
        [{ ...sample('x', '2024-01-01T00:00:00Z'), activeParticipant: { userID: 'x' } }, 'body.activeParticipant'],
        [{ ...sample('x', '2024-01-01T00:00:00Z'), auditSourceIdentification: { auditSourceID: 5 } }, 'body.auditSourceIdentification.auditSourceID'],
        [{ ...sample('x', '2024-01-01T00:00:00Z'), $where: 'x' }, 'body.$where'],
      ];
      for (const [body, path] of cases) {
        const res = await post(body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(JSON.stringify(res.body)).toContain(path);
      }
      expect(await stored({ userID: 'user-x' })).toEqual([]);
    });
  });

  describe('GET /audits', () => {
    const ids = (res: TestResponse) => (res.body as Audit[]).map((a) => a.activeParticipant?.[0]?.userID ?? a.eventIdentification.eventID?.code);
    const mine = { filters: JSON.stringify({ 'auditSourceIdentification.auditSourceID': SOURCE }) };

    it('answers newest first, page by page, in the default view without participants or raw message', async () => {
      const first = await list({ ...mine, filterLimit: '2', filterPage: '0' });
      expect(first.status).toBe(200);
      const page = first.body as Record<string, unknown>[];
      expect(page.map((a) => (a.eventIdentification as { eventID: { code: string } }).eventID.code)).toEqual(['id-c', 'id-b']);
      for (const audit of page) {
        expect(Object.keys(audit).sort()).toEqual(['_id', 'auditSourceIdentification', 'eventIdentification']);
      }
      const second = await list({ ...mine, filterLimit: '2', filterPage: '1' });
      expect((second.body as Audit[]).map((a) => a.eventIdentification.eventID?.code)).toEqual(['id-a', 'id-p']);
    });

    it('answers whole records for simpledetails and full', async () => {
      for (const filterRepresentation of ['simpledetails', 'full']) {
        const res = await list({ ...mine, filterLimit: '1', filterRepresentation });
        const [audit] = res.body as Audit[];
        expect(audit?.activeParticipant[0]?.userID).toBe('user-c');
        expect(audit?.participantObjectIdentification[0]?.participantObjectDetail).toEqual([{ type: 'dtype-c', value: 'dvalue-c' }]);
        expect(audit?.eventIdentification.eventDateTime).toBe('2024-01-03T10:00:00.000Z');
      }
    });

    it('finds audit a alone by each filter key the console sends', async () => {
      expect(Object.keys(FOR_A).sort()).toEqual([...AUDIT_FILTER_KEYS].sort());
      for (const [key, value] of Object.entries(FOR_A)) {
        const filters = key === 'auditSourceIdentification.auditSourceID' ? { [key]: value, 'activeParticipant.userID': 'user-a' } : { [key]: value, 'auditSourceIdentification.auditSourceID': SOURCE };
        const res = await list({ filters: JSON.stringify(filters), filterRepresentation: 'full' });
        expect(res.status, key).toBe(200);
        expect(ids(res), key).toEqual(['user-a']);
      }
    });

    it('accepts the date range as an object too', async () => {
      const res = await list({ filters: JSON.stringify({ 'eventIdentification.eventDateTime': { $gte: '2024-01-02T00:00:00Z' }, 'auditSourceIdentification.auditSourceID': SOURCE }), filterRepresentation: 'full' });
      expect(ids(res)).toEqual(['user-c', 'user-b']);
    });

    it('reads the patient ID filter\'s AND form, and matches the ID from its start', async () => {
      const and = { type: 'AND', patientID: JSON.stringify('pat-b\\^\\^\\^.*'), objectID: 'Clinic&1' };
      expect(ids(await list({ filters: JSON.stringify({ 'participantObjectIdentification.participantObjectID': and }), filterRepresentation: 'full' }))).toEqual(['user-b']);
      // "at-b" is inside "pat-b", but a patient ID filter names the start of the identifier.
      expect(ids(await list({ filters: JSON.stringify({ 'participantObjectIdentification.participantObjectID': JSON.stringify('at-b\\^\\^\\^.*') }), filterRepresentation: 'full' }))).toEqual([]);
    });

    it('refuses special characters in the patient ID with OpenHIM\'s text, and a catastrophic pattern', async () => {
      const special = await list({ filters: JSON.stringify({ 'participantObjectIdentification.participantObjectID': JSON.stringify('pat.*\\^\\^\\^') }) });
      expect(special.status).toBe(400);
      expect(JSON.stringify(special.body)).toContain(PATIENT_ID_CHARACTERS);
      const catastrophic = await list({ filters: JSON.stringify({ 'participantObjectIdentification.participantObjectID': { type: 'AND', patientID: 'p', objectID: '(a+)+\\1' } }) });
      expect(catastrophic.status).toBe(400);
    });

    it('refuses unknown filter keys, bad JSON and a page over the cap with 400', async () => {
      const unknown = await list({ filters: JSON.stringify({ rawMessage: { $regex: '.*' } }) });
      expect(unknown.status).toBe(400);
      expect((unknown.body as { error: { message: string } }).error.message).toMatch(/^querystring\.filters\.rawMessage is not a known filter/);
      expect((await list({ filters: '{not json' })).status).toBe(400);
      const over = await list({ filterLimit: String(MAX_AUDIT_PAGE + 1) });
      expect(over.status).toBe(400);
      expect(JSON.stringify(over.body)).toContain('filterLimit');
      expect((await list({ filterRepresentation: 'everything' })).status).toBe(400);
    });

    it('answers at most MAX_AUDIT_PAGE for filterLimit 0 (OpenHIM\'s no limit)', async () => {
      const res = await list({ ...mine, filterLimit: '0' });
      expect(res.status).toBe(200);
      expect((res.body as Audit[]).length).toBe(4);
    });
  });

  describe('GET /audits/:auditId', () => {
    it('answers the whole record', async () => {
      const [record] = await stored({ userID: 'user-b' });
      const res = await get(`/audits/${record?._id ?? ''}`);
      expect(res.status).toBe(200);
      const audit = res.body as Audit;
      expect(audit._id).toBe(record?._id);
      expect(audit.activeParticipant[0]?.roleIDCode?.code).toBe('role-b');
    });

    it('answers 404 with OpenHIM\'s text for an unknown id, 400 for a malformed one', async () => {
      const unknown = await get('/audits/0123456789abcdef01234567');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ error: { code: 'NOT_FOUND', message: 'Could not find audits record with ID: 0123456789abcdef01234567' } });
      const malformed = await get('/audits/not-an-id');
      expect(malformed.status).toBe(400);
      expect(JSON.stringify(malformed.body)).toContain('params.auditId');
    });
  });

  describe('GET /audits/export', () => {
    it('streams every match as NDJSON, with a file name', async () => {
      const res = await t.request(`/audits/export?${new URLSearchParams({ filters: JSON.stringify({ 'auditSourceIdentification.auditSourceID': SOURCE }) }).toString()}`, { headers: admin });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="audits-.*\.ndjson"$/);
      const lines = res.text.trim().split('\n').map((line) => JSON.parse(line) as Audit);
      expect(lines.map((a) => a.eventIdentification.eventID?.code)).toEqual(['id-c', 'id-b', 'id-a', 'id-p']);
      expect(lines[0]?.activeParticipant[0]?.userID).toBe('user-c');
    });

    it('refuses unknown filters', async () => {
      expect((await get(`/audits/export?filters=${encodeURIComponent('{"$where":"1"}')}`)).status).toBe(400);
    });
  });

  describe('GET /audits-filter-options', () => {
    it('lists the codes seen, with stable ids, including codes posted since', async () => {
      const before = (await get('/audits-filter-options')).body as AuditFilterOptions;
      expect(before.eventID.map((c) => c.code)).toEqual(expect.arrayContaining(['id-a', 'id-b', 'id-c']));
      expect(before.eventID.map((c) => c.code)).not.toContain('brand-new');
      expect((await post(sample('n', '2024-02-01T00:00:00Z', { eventIdentification: { eventDateTime: '2024-02-01T00:00:00Z', eventID: { code: 'brand-new', displayName: 'New' }, eventTypeCode: { code: 'new-type' } } }))).status).toBe(201);
      const after = (await get('/audits-filter-options')).body as AuditFilterOptions;
      expect(after._id).toBe(before._id);
      expect(after._id).toMatch(/^[0-9a-f]{24}$/);
      const added = after.eventID.find((c) => c.code === 'brand-new');
      expect(added?._id).toMatch(/^[0-9a-f]{24}$/);
      expect(after.eventType.map((c) => c.code)).toContain('new-type');
      expect(after.activeParticipantRoleID.map((c) => c.code)).toContain('role-n');
      expect(after.participantObjectIDTypeCode.map((c) => c.code)).toContain('obj-n');
      expect(after.auditSourceID).toContain(SOURCE);
      const again = (await get('/audits-filter-options')).body as AuditFilterOptions;
      expect(again.eventID.find((c) => c.code === 'id-a')?._id).toBe(after.eventID.find((c) => c.code === 'id-a')?._id);
    });
  });

  describe('permissions', () => {
    const routes: [string, string][] = [
      ['GET', '/audits'],
      ['GET', '/audits/0123456789abcdef01234567'],
      ['GET', '/audits-filter-options'],
      ['GET', '/audits/export'],
      ['POST', '/audits'],
    ];

    it('refuses non-admins with 403 and anonymous callers with 401', async () => {
      for (const [method, path] of routes) {
        const json = method === 'POST' ? sample('z', '2024-01-01T00:00:00Z') : undefined;
        const asNurse = await t.inject(path, { method, headers: nurse, ...(json === undefined ? {} : { json }) });
        expect(asNurse.status, `${method} ${path}`).toBe(403);
        const anonymous = await t.inject(path, { method, ...(json === undefined ? {} : { json }) });
        expect(anonymous.status, `${method} ${path}`).toBe(401);
      }
      expect(await stored({ userID: 'user-z' })).toEqual([]);
    });
  });

  describe('Audit Log Used', () => {
    const detail = (audit: AuditRecord | undefined, type: string) => audit?.participantObjectIdentification[0]?.participantObjectDetail?.find((d) => d.type === type)?.value;

    it('writes one event per request that reads audit content, naming the user and the count', async () => {
      const before = (await logUsed()).length;
      await list({ filters: JSON.stringify({ 'auditSourceIdentification.auditSourceID': SOURCE }), filterRepresentation: 'full', filterLimit: '3' });
      const after = await logUsed();
      expect(after.length).toBe(before + 1);
      const [event] = after;
      expect(event?.eventIdentification).toMatchObject({ eventActionCode: 'R', eventOutcomeIndicator: '0', eventID: { code: '110101', displayName: 'Audit Log Used' } });
      expect(event?.activeParticipant.find((p) => p.userIsRequestor === 'true')?.userID).toBe(ROOT_EMAIL);
      expect(event?.participantObjectIdentification[0]).toMatchObject({ participantObjectTypeCodeRole: '13', participantObjectIDTypeCode: { code: '12' }, participantObjectName: 'Security Audit Log' });
      expect(event?.participantObjectIdentification[0]?.participantObjectID).toMatch(/\/audits\?filters=/);
      expect(detail(event, 'count')).toBe('3');
    });

    it('does not audit the default list view', async () => {
      const before = (await logUsed()).length;
      await list({ filterLimit: '5' });
      expect((await logUsed()).length).toBe(before);
    });

    it('audits a record read (outcome 0) and an unknown id (outcome 4)', async () => {
      const [record] = await stored({ userID: 'user-a' });
      await get(`/audits/${record?._id ?? ''}`);
      await get('/audits/0123456789abcdef01234567');
      const [missing, found] = await logUsed();
      expect(found?.eventIdentification.eventOutcomeIndicator).toBe('0');
      expect(found?.participantObjectIdentification[0]?.participantObjectID).toMatch(new RegExp(`/audits/${record?._id ?? 'x'}$`));
      expect(missing?.eventIdentification.eventOutcomeIndicator).toBe('4');
    });

    it('audits an export once, with the number of records written', async () => {
      const before = (await logUsed()).length;
      const res = await t.request(`/audits/export?${new URLSearchParams({ filters: JSON.stringify({ 'auditSourceIdentification.auditSourceID': SOURCE }) }).toString()}`, { headers: admin });
      const lines = res.text.trim().split('\n').length;
      const after = await logUsed();
      expect(after.length).toBe(before + 1);
      expect(detail(after[0], 'count')).toBe(String(lines));
    });
  });

  describe('emitted events', () => {
    it('audits a client refused on a channel as node authentication, a flood as one summary', async () => {
      const channel = await t.inject('/channels', {
        method: 'POST',
        headers: admin,
        json: { name: 'locked', urlPattern: '^/locked$', authType: 'private', allow: ['someone-else'], routes: [{ name: 'r', host: '127.0.0.1', port: 9, primary: true }] },
      });
      expect(channel.status).toBe(201);
      const nodeAuth = () => stored({ codes: [{ field: 'eventTypeCode', code: '110126' }] });
      for (let i = 0; i < 5; i++) expect((await fetch(`${t.httpUrl}/locked`)).status).toBe(401);
      const events = await nodeAuth();
      expect(events).toHaveLength(1);
      const [event] = events;
      expect(event?.eventIdentification).toMatchObject({ eventOutcomeIndicator: '4', eventID: { code: '110113', displayName: 'Security Alert' } });
      expect(event?.participantObjectIdentification[0]).toMatchObject({ participantObjectID: '127.0.0.1', participantObjectIDTypeCode: { code: '110182', displayName: 'Node ID' } });
      // The four that followed are counted into one summary (test/api/audits-events.test.ts).
    });

    it('audits a mediator registration as Application Start with the mediator and its first endpoint\'s host', async () => {
      const registration = {
        urn: 'urn:mediator:audited',
        version: '2.1.0',
        name: 'Audited mediator',
        endpoints: [{ name: 'main', host: 'mediator.clinic.example', port: 7001, primary: true }],
      };
      expect((await t.inject('/mediators', { method: 'POST', headers: admin, json: registration })).status).toBe(201);
      const [event] = await stored({ userID: 'Audited mediator' });
      expect(event?.eventIdentification).toMatchObject({ eventOutcomeIndicator: '0', eventID: { code: '110100' }, eventTypeCode: { code: '110120', displayName: 'Application Start' } });
      expect(event?.activeParticipant[0]).toMatchObject({ userID: 'Audited mediator', networkAccessPointID: 'mediator.clinic.example' });
      expect(event?.activeParticipant[1]).toMatchObject({ userID: ROOT_EMAIL, roleIDCode: { code: '110151' } });
    });
  });
});
