import { describe, expect, it } from 'vitest';
import { parseSyslog } from '../../service/audit/syslog-header.js';
import { sample } from './samples.js';

const received = new Date('2026-11-23T10:00:00Z');

describe('RFC 5424 header', () => {
  it('reads the fields OpenHIM names, with facility and severity named as OpenHIM names them', () => {
    const parsed = parseSyslog('<85>1 2026-11-23T08:30:12.460Z emr.clinic.example clinic-emr 4410 IHE+RFC-3881 - <AuditMessage/>', received);
    expect(parsed).toEqual({
      syslog: {
        prival: 85,
        facilityID: 10,
        severityID: 5,
        facility: 'sec',
        severity: 'notice',
        type: 'RFC5424',
        time: '2026-11-23T08:30:12.460Z',
        host: 'emr.clinic.example',
        appName: 'clinic-emr',
        pid: '4410',
        msgID: 'IHE+RFC-3881',
      },
      payload: '<AuditMessage/>',
    });
  });

  it('skips structured data with escaped quotes and brackets, and drops the BOM before the payload', () => {
    const message = sample('dicom-login-failure.rfc5424');
    const parsed = parseSyslog(message, received);
    expect(parsed?.syslog.type).toBe('RFC5424');
    expect(parsed?.payload.startsWith('<?xml version="1.0"')).toBe(true);
    expect(parsed?.payload.endsWith('</AuditMessage>')).toBe(true);
  });

  it('keeps newlines in the payload and leaves nil fields out', () => {
    const parsed = parseSyslog('<13>1 - - - - - [timeQuality tzKnown="1" isSynced="0"] <a>\n<b/>\n</a>', received);
    expect(parsed?.syslog).toEqual({ prival: 13, facilityID: 1, severityID: 5, facility: 'user', severity: 'notice', type: 'RFC5424' });
    expect(parsed?.payload).toBe('<a>\n<b/>\n</a>');
  });

  it('reads a time with microseconds and an offset, as util-linux logger sends it', () => {
    const parsed = parseSyslog('<13>1 2026-11-23T12:00:00.123456+02:00 host root - - [timeQuality tzKnown="1"] x', received);
    expect(parsed?.syslog.time).toBe('2026-11-23T10:00:00.123Z');
    expect(parsed?.syslog.appName).toBe('root');
    expect(parsed?.syslog.pid).toBeUndefined();
  });

  it('accepts a message with no MSG part', () => {
    expect(parseSyslog('<85>1 2026-11-23T08:30:12Z h a p m -', received)?.payload).toBe('');
  });
});

describe('RFC 3164 header', () => {
  it('reads time, host and TAG with its pid, leaving the XML as the payload', () => {
    const parsed = parseSyslog(sample('rfc3881-patient-read.rfc3164'), received);
    expect(parsed?.syslog).toEqual({
      prival: 86,
      facilityID: 10,
      severityID: 6,
      facility: 'sec',
      severity: 'info',
      type: 'RFC3164',
      time: new Date(2026, 10, 23, 9, 2, 17).toISOString(),
      host: 'emr',
      appName: 'clinic-emr',
      pid: '4410',
    });
    expect(parsed?.payload.startsWith('<?xml')).toBe(true);
  });

  it('gives a year-less time the year nearest the receive time, across New Year both ways', () => {
    const justAfterNewYear = new Date(2027, 0, 1, 0, 0, 5);
    expect(parseSyslog('<86>Dec 31 23:59:58 h t: x', justAfterNewYear)?.syslog.time).toBe(new Date(2026, 11, 31, 23, 59, 58).toISOString());
    const justBefore = new Date(2026, 11, 31, 23, 59, 59);
    expect(parseSyslog('<86>Jan  1 00:00:01 h t: x', justBefore)?.syslog.time).toBe(new Date(2027, 0, 1, 0, 0, 1).toISOString());
  });

  it('reads a message without TAG or host, and an RFC 3339 time in the BSD form', () => {
    expect(parseSyslog('<86>Nov 23 09:02:17 emr <AuditMessage/>', received)).toMatchObject({ syslog: { host: 'emr' }, payload: '<AuditMessage/>' });
    expect(parseSyslog('<86>Nov 23 09:02:17 <AuditMessage/>', received)?.payload).toBe('<AuditMessage/>');
    const iso = parseSyslog('<86>2026-11-23T09:02:17+01:00 emr emr-app: <AuditMessage/>', received);
    expect(iso).toMatchObject({ syslog: { type: 'RFC3164', time: '2026-11-23T08:02:17.000Z', host: 'emr', appName: 'emr-app' }, payload: '<AuditMessage/>' });
  });
});

describe('no header', () => {
  it('answers undefined for a bare XML payload or a PRI out of range', () => {
    expect(parseSyslog('<?xml version="1.0"?><AuditMessage/>', received)).toBeUndefined();
    expect(parseSyslog('<AuditMessage/>', received)).toBeUndefined();
    expect(parseSyslog('<192>1 - - - - - - x', received)).toBeUndefined();
  });

  it('keeps the PRI of a message whose header is neither form, with the rest as payload', () => {
    expect(parseSyslog('<13>hello <AuditMessage/>', received)).toEqual({
      syslog: { prival: 13, facilityID: 1, severityID: 5, facility: 'user', severity: 'notice' },
      payload: 'hello <AuditMessage/>',
    });
  });
});
