import { describe, expect, it } from 'vitest';
import { AUDIT_FILTER_KEYS, literalPrefix, MAX_AUDIT_PAGE, parseAuditFilters, parseAuditQuery, PATIENT_ID_CHARACTERS } from '../../service/domain/operations/audit-filters.js';

const filters = (value: Record<string, unknown>) => parseAuditFilters(JSON.stringify(value));
const PATIENT = 'participantObjectIdentification.participantObjectID';

function problems(result: ReturnType<typeof parseAuditFilters>): { path: string; message: string }[] {
  if (result.ok) throw new Error('expected problems');
  return result.problems;
}

describe('audit filters', () => {
  it('answers no conditions for no filters', () => {
    expect(parseAuditFilters(undefined)).toEqual({ ok: true, value: {} });
    expect(parseAuditFilters('  ')).toEqual({ ok: true, value: {} });
    expect(filters({})).toEqual({ ok: true, value: {} });
  });

  it('refuses text that is not a JSON object', () => {
    expect(problems(parseAuditFilters('{bad'))).toEqual([{ path: 'querystring.filters', message: 'must be a JSON object' }]);
    expect(problems(parseAuditFilters('[1]'))).toEqual([{ path: 'querystring.filters', message: 'must be a JSON object' }]);
  });

  it('refuses any key not on the allow list, Mongo operators included, naming each', () => {
    const found = problems(filters({ $where: 'sleep(1000)', rawMessage: 'x', 'eventIdentification.eventID.code': '110114' }));
    expect(found.map((p) => p.path)).toEqual(['querystring.filters.$where', 'querystring.filters.rawMessage']);
    expect(found[0]?.message).toMatch(/^is not a known filter; use one of: eventIdentification\.eventDateTime/);
  });

  it('reads the date range as JSON text (as the console sends it) or as an object', () => {
    const range = { $gte: '2024-05-01T00:00:00Z', $lte: '2024-05-31T23:59:59.999Z' };
    const expected = { ok: true, value: { from: new Date(range.$gte), to: new Date(range.$lte) } };
    expect(filters({ 'eventIdentification.eventDateTime': JSON.stringify(range) })).toEqual(expected);
    expect(filters({ 'eventIdentification.eventDateTime': range })).toEqual(expected);
    expect(filters({ 'eventIdentification.eventDateTime': { $gte: '2024-05-01' } })).toEqual({ ok: true, value: { from: new Date('2024-05-01') } });
  });

  it('refuses bad date ranges', () => {
    const key = 'eventIdentification.eventDateTime';
    expect(problems(filters({ [key]: 'not json' }))[0]?.path).toBe(`querystring.filters.${key}`);
    expect(problems(filters({ [key]: {} }))[0]?.message).toMatch(/at least one bound/);
    expect(problems(filters({ [key]: { $gt: '2024-01-01' } }))[0]?.message).toMatch(/unknown bound "\$gt"/);
    expect(problems(filters({ [key]: { $gte: 'yesterday' } }))[0]?.path).toBe(`querystring.filters.${key}.$gte`);
    expect(problems(filters({ [key]: { $gte: '2024-02-01', $lte: '2024-01-01' } }))[0]?.message).toBe('has $gte after $lte');
  });

  it('maps every code key to one exact condition on its field and part', () => {
    const result = filters({
      'eventIdentification.eventTypeCode.code': '110122',
      'eventIdentification.eventID.displayName': 'UserAuthenticated',
      'activeParticipant.roleIDCode.codeSystemName': 'DCM',
      'participantObjectIdentification.participantObjectIDTypeCode.code': '2',
    });
    expect(result).toEqual({
      ok: true,
      value: {
        codes: [
          { field: 'eventTypeCode', code: '110122' },
          { field: 'eventID', displayName: 'UserAuthenticated' },
          { field: 'roleIDCode', codeSystemName: 'DCM' },
          { field: 'participantObjectIDTypeCode', code: '2' },
        ],
      },
    });
  });

  it('maps every text key to its condition, a number read as its digits', () => {
    const result = filters({
      'eventIdentification.eventActionCode': 'R',
      'eventIdentification.eventOutcomeIndicator': 4,
      'activeParticipant.userID': 'nurse',
      'activeParticipant.alternativeUserID': '1234',
      'activeParticipant.networkAccessPointID': '10.0.0.1',
      'participantObjectIdentification.participantObjectDetail.type': 'count',
      'participantObjectIdentification.participantObjectDetail.value': '3',
      'auditSourceIdentification.auditSourceID': 'Junction',
    });
    expect(result).toEqual({
      ok: true,
      value: {
        eventActionCode: 'R',
        eventOutcomeIndicator: '4',
        userID: 'nurse',
        alternativeUserID: '1234',
        networkAccessPointID: '10.0.0.1',
        participantObjectDetailType: 'count',
        participantObjectDetailValue: '3',
        auditSourceID: 'Junction',
      },
    });
  });

  it('lists every key the console sends', () => {
    expect(AUDIT_FILTER_KEYS).toHaveLength(2 + 12 + 8);
    for (const key of AUDIT_FILTER_KEYS) expect(key).not.toMatch(/\$/);
  });

  it('refuses empty, long and non-text values for exact keys', () => {
    for (const value of ['', 'x'.repeat(1001), { $ne: 'a' }, ['a'], null, true]) {
      expect(problems(filters({ 'activeParticipant.userID': value }))[0]).toEqual({ path: 'querystring.filters.activeParticipant.userID', message: 'must be a text of 1 to 1000 characters' });
    }
  });
});

describe('the patient ID filter', () => {
  const console = (source: string) => filters({ [PATIENT]: JSON.stringify(source) });

  it('turns the console pattern into an index prefix up to its first metacharacter, and keeps the rest as a pattern', () => {
    // The console does not escape the dots of an authority's OID: they are regex dots, so the literal part stops there.
    expect(console('12345\\^\\^\\^Clinic&1.2.3&.*')).toEqual({ ok: true, value: { participantObjectID: [{ prefix: '12345^^^Clinic&1', pattern: '^(?:12345\\^\\^\\^Clinic&1.2.3&.*)' }] } });
    expect(console('12345\\^\\^\\^Clinic&1\\.2\\.3&.*')).toEqual({ ok: true, value: { participantObjectID: [{ prefix: '12345^^^Clinic&1.2.3&' }] } });
  });

  it('accepts the source itself, not only its JSON text', () => {
    expect(filters({ [PATIENT]: 'abc-9\\^\\^\\^' })).toEqual({ ok: true, value: { participantObjectID: [{ prefix: 'abc-9^^^' }] } });
  });

  it('keeps a pattern, anchored at the start, when more than a literal follows', () => {
    expect(console('12345\\^\\^\\^.*&ISO')).toEqual({ ok: true, value: { participantObjectID: [{ prefix: '12345^^^', pattern: '^(?:12345\\^\\^\\^.*&ISO)' }] } });
    // An empty patient ID (any patient of one authority) leaves an empty prefix.
    expect(console('\\^\\^\\^[A-Z]+&')).toEqual({ ok: true, value: { participantObjectID: [{ prefix: '^^^', pattern: '^(?:\\^\\^\\^[A-Z]+&)' }] } });
  });

  it('refuses special characters in the patient ID with OpenHIM\'s words', () => {
    for (const source of ['12.*\\^\\^\\^', '(a+)+\\^', 'a b\\^', '[0-9]+']) {
      expect(problems(console(source))).toEqual([{ path: `querystring.filters.${PATIENT}`, message: PATIENT_ID_CHARACTERS }]);
    }
  });

  it('refuses a catastrophic or unsupported pattern after the ID with 400', () => {
    const backreference = problems(console('12\\^(a)\\1'));
    expect(backreference[0]?.message).toMatch(/backreferences/);
    const long = problems(console(`12\\^${'(a|b)'.repeat(100)}`));
    expect(long[0]?.message).toMatch(/at most 500 characters/);
    const complex = problems(console(`12\\^${'[a-z]{1,300}'.repeat(5)}`));
    expect(complex[0]?.message).toMatch(/too complex/);
  });

  it('reads the AND form: the patient ID prefix and an object ID searched anywhere', () => {
    const result = filters({ [PATIENT]: { type: 'AND', patientID: JSON.stringify('777\\^\\^\\^.*'), objectID: 'doc-1' } });
    expect(result).toEqual({ ok: true, value: { participantObjectID: [{ prefix: '777^^^' }, { prefix: '', pattern: 'doc-1' }] } });
  });

  it('refuses a bad AND form, naming the part', () => {
    expect(problems(filters({ [PATIENT]: { type: 'OR', patientID: '1', objectID: '2' } }))[0]?.path).toBe(`querystring.filters.${PATIENT}.type`);
    expect(problems(filters({ [PATIENT]: { type: 'AND', patientID: 'a*', objectID: '2' } }))[0]).toEqual({ path: `querystring.filters.${PATIENT}.patientID`, message: PATIENT_ID_CHARACTERS });
    expect(problems(filters({ [PATIENT]: { type: 'AND', patientID: '1', objectID: 5 } }))[0]?.path).toBe(`querystring.filters.${PATIENT}.objectID`);
    expect(problems(filters({ [PATIENT]: { type: 'AND', patientID: '1', objectID: '(?=x)' } }))[0]?.message).toMatch(/lookahead/);
    expect(problems(filters({ [PATIENT]: { type: 'AND', patientID: '1', objectID: 'x', $where: 1 } }))[0]?.path).toBe(`querystring.filters.${PATIENT}.$where`);
  });

  it('refuses a value that is not a pattern', () => {
    expect(problems(filters({ [PATIENT]: 12 }))[0]?.path).toBe(`querystring.filters.${PATIENT}`);
  });
});

describe('literalPrefix', () => {
  it('stops at metacharacters and class escapes, and leaves out a quantified character', () => {
    expect(literalPrefix('abc')).toEqual({ prefix: 'abc', whole: true });
    expect(literalPrefix('abc.*')).toEqual({ prefix: 'abc', whole: true });
    expect(literalPrefix('a\\.b\\^c')).toEqual({ prefix: 'a.b^c', whole: true });
    expect(literalPrefix('abc+')).toEqual({ prefix: 'ab', whole: false });
    expect(literalPrefix('ab?')).toEqual({ prefix: 'a', whole: false });
    expect(literalPrefix('ab{2}')).toEqual({ prefix: 'a', whole: false });
    expect(literalPrefix('a\\d')).toEqual({ prefix: 'a', whole: false });
    expect(literalPrefix('a|b')).toEqual({ prefix: 'a', whole: false });
    expect(literalPrefix('[ab]c')).toEqual({ prefix: '', whole: false });
    expect(literalPrefix('a\\')).toEqual({ prefix: 'a', whole: false });
  });
});

describe('the list query', () => {
  it('defaults to the first page of MAX_AUDIT_PAGE, as OpenHIM\'s "no limit" capped', () => {
    expect(parseAuditQuery({})).toEqual({ ok: true, value: { filter: {}, limit: MAX_AUDIT_PAGE, skip: 0 } });
    expect(parseAuditQuery({ filterLimit: 0, filterPage: 3 })).toEqual({ ok: true, value: { filter: {}, limit: MAX_AUDIT_PAGE, skip: 3 * MAX_AUDIT_PAGE } });
  });

  it('pages by filterLimit and filterPage', () => {
    expect(parseAuditQuery({ filterLimit: 20, filterPage: 2, filters: '{"activeParticipant.userID":"a"}' })).toEqual({ ok: true, value: { filter: { userID: 'a' }, limit: 20, skip: 40 } });
  });

  it('refuses a page over the cap, pointing at the export, and pages past exact integers', () => {
    const over = parseAuditQuery({ filterLimit: MAX_AUDIT_PAGE + 1 });
    expect(over.ok ? [] : over.problems.map((p) => p.path)).toEqual(['querystring.filterLimit']);
    expect(over.ok ? '' : over.problems[0]?.message).toMatch(/GET \/audits\/export/);
    const far = parseAuditQuery({ filterLimit: 1000, filterPage: Number.MAX_SAFE_INTEGER });
    expect(far.ok ? [] : far.problems.map((p) => p.path)).toEqual(['querystring.filterPage']);
  });

  it('reports filter problems with page problems', () => {
    const both = parseAuditQuery({ filterLimit: -1, filters: '{"x":1}' });
    expect(both.ok ? [] : both.problems.map((p) => p.path)).toEqual(['querystring.filterLimit', 'querystring.filters.x']);
  });
});
