/** The audit log's URL query and its translation into OpenHIM's `filters` keys. */
import { describe, expect, it } from 'vitest';
import {
  EMPTY_AUDIT_FILTERS,
  auditApiFilters,
  auditDateOrderProblem,
  auditQueryFromParams,
  authorityProblem,
  hasAuditFilters,
  paramsFromAuditQuery,
  patientIdPattern,
  patientIdProblem,
} from './filters';
import type { AuditListFilters } from './filters';
import { filtersParam } from '../../api/audits';

const PATIENT_KEY = 'participantObjectIdentification.participantObjectID';

function filters(patch: Partial<AuditListFilters>): AuditListFilters {
  return { ...EMPTY_AUDIT_FILTERS, ...patch };
}

describe('audit list URL', () => {
  it('survives a round trip with every filter set', () => {
    const query = {
      filters: filters({
        from: '2026-11-01T00:00:00.000Z',
        to: '2026-11-02T23:59:59.999Z',
        eventType: '110122',
        eventID: '110114',
        user: 'nurse@clinic',
        patient: 'PID-42',
        authority: 'Clinic',
        authorityId: '1.2.840.1',
        outcome: '8',
        action: 'R',
        source: 'Junction',
      }),
      page: 3,
      size: 50,
    };
    const params = paramsFromAuditQuery(query);
    expect(auditQueryFromParams(new URLSearchParams(params.toString()))).toEqual(query);
  });

  it('keeps a plain view plain and ignores malformed values', () => {
    expect(paramsFromAuditQuery({ filters: EMPTY_AUDIT_FILTERS, page: 1, size: 20 }).toString()).toBe('');
    const query = auditQueryFromParams(new URLSearchParams('from=yesterday&outcome=3&action=X&page=-2&size=7&type='));
    expect(query).toEqual({ filters: EMPTY_AUDIT_FILTERS, page: 1, size: 20 });
  });
});

describe('audit API filters', () => {
  it('is empty with no filters, and the parameter is then left out', () => {
    expect(auditApiFilters(EMPTY_AUDIT_FILTERS)).toEqual({});
    expect(filtersParam({})).toBeUndefined();
    expect(hasAuditFilters(EMPTY_AUDIT_FILTERS)).toBe(false);
  });

  it('sends the date range as a JSON string of $gte and $lte, as OpenHIM’s console does', () => {
    const out = auditApiFilters(filters({ from: '2026-11-01T00:00:00.000Z', to: '2026-11-02T00:00:00.000Z' }));
    expect(typeof out['eventIdentification.eventDateTime']).toBe('string');
    expect(JSON.parse(out['eventIdentification.eventDateTime'] ?? '')).toEqual({ $gte: '2026-11-01T00:00:00.000Z', $lte: '2026-11-02T00:00:00.000Z' });
    expect(JSON.parse(auditApiFilters(filters({ from: '2026-11-01T00:00:00.000Z' }))['eventIdentification.eventDateTime'] ?? '')).toEqual({
      $gte: '2026-11-01T00:00:00.000Z',
    });
  });

  it('names codes, participants, outcome, action and source by OpenHIM’s keys', () => {
    expect(auditApiFilters(filters({ eventType: '110122', eventID: '110114', user: ' nurse ', outcome: '0', action: 'E', source: 'Lab' }))).toEqual({
      'eventIdentification.eventTypeCode.code': '110122',
      'eventIdentification.eventID.code': '110114',
      'activeParticipant.userID': 'nurse',
      'eventIdentification.eventOutcomeIndicator': '0',
      'eventIdentification.eventActionCode': 'E',
      'auditSourceIdentification.auditSourceID': 'Lab',
    });
  });

  it('builds the patient ID regex with wildcards for an authority left out', () => {
    expect(patientIdPattern('123', '', '')).toBe('123\\^\\^\\^.*&.*&.*');
    const out = auditApiFilters(filters({ patient: '123' }));
    // The value is a JSON string of the regex source, as OpenHIM's console sends it.
    expect(out[PATIENT_KEY]).toBe('"123\\\\^\\\\^\\\\^.*&.*&.*"');
    expect(new RegExp(JSON.parse(out[PATIENT_KEY] ?? '') as string).test('123^^^Clinic&1.2.3&ISO')).toBe(true);
  });

  it('matches the assigning authority literally', () => {
    const pattern = patientIdPattern('123', 'Clinic', '1.2.3');
    expect(pattern).toBe('123\\^\\^\\^Clinic&1\\.2\\.3&.*');
    const regex = new RegExp(`^${pattern}`);
    expect(regex.test('123^^^Clinic&1.2.3&ISO')).toBe(true);
    expect(regex.test('123^^^Clinic&1x2x3&ISO')).toBe(false);
    expect(regex.test('123^^^Other&1.2.3&ISO')).toBe(false);
  });

  it('leaves out a patient ID the API would refuse, and says why', () => {
    expect(patientIdProblem('PID_42-a')).toBeNull();
    expect(patientIdProblem('12.3')).toMatch(/Special characters/);
    expect(authorityProblem('a&b')).not.toBeNull();
    expect(auditApiFilters(filters({ patient: '1*' }))).toEqual({});
    expect(auditApiFilters(filters({ patient: '1', authority: 'a^b' }))).toEqual({});
    // An authority without a patient ID filters nothing.
    expect(auditApiFilters(filters({ authority: 'Clinic' }))).toEqual({});
  });

  it('finds a date range the wrong way round', () => {
    expect(auditDateOrderProblem(filters({ from: '2026-11-02T00:00:00Z', to: '2026-11-01T00:00:00Z' }))).not.toBeNull();
    expect(auditDateOrderProblem(filters({ from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' }))).toBeNull();
  });
});
