/** Why a transaction did not succeed, in one line (domain/transactions/transaction-reason.ts, issue 36). */
import { describe, expect, it } from 'vitest';
import { ackStatementOf } from '../../service/domain/codecs/hl7.js';
import { REASON_MAX_CHARS, reasonText, recordedReason, transactionReason } from '../../service/domain/transactions/transaction-reason.js';

const ack = (code: string, msa3 = '', err = '') =>
  Buffer.from(`MSH|^~\\&|LAB|HOSP|JUNCTION|CLINIC|20260101120000||ACK^R01^ACK|A1|P|2.5\rMSA|${code}|MSG001${msa3 === '' ? '' : `|${msa3}`}\r${err === '' ? '' : `${err}\r`}`, 'latin1');

describe('the reason of a transaction', () => {
  it('is the route error when the upstream could not be reached', () => {
    const reason = transactionReason({ status: 'Failed', error: 'route lab (http://127.0.0.1:9/) could not be reached: connect ECONNREFUSED 127.0.0.1:9', answer: { status: 500 } });
    expect(reason).toBe('route lab (http://127.0.0.1:9/) could not be reached: connect ECONNREFUSED 127.0.0.1:9');
  });

  it("is an HTTP error's status with the start of its body", () => {
    expect(transactionReason({ status: 'Failed', answer: { status: 500, head: Buffer.from('{"error":"database is locked"}\n'), contentType: 'application/json' } })).toBe('500: {"error":"database is locked"}');
    expect(transactionReason({ status: 'Completed', answer: { status: 404 } })).toBe('404');
    // A proxy's HTML error page reads as its words.
    const page = '<html><head><title>502 Bad Gateway</title><style>body{}</style></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>';
    expect(transactionReason({ status: 'Failed', answer: { status: 502, head: Buffer.from(page), contentType: 'text/html' } })).toBe('502: 502 Bad Gateway 502 Bad Gateway nginx');
    // Bytes that are not text are left out.
    expect(transactionReason({ status: 'Failed', answer: { status: 500, head: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0xff, 0xfe]), contentType: 'image/png' } })).toBe('500');
  });

  it('is bounded, on one line, and never carries credentials', () => {
    const long = transactionReason({ status: 'Failed', answer: { status: 500, head: Buffer.from(`${'x'.repeat(500)}`) } }) ?? '';
    expect(long.length).toBe(REASON_MAX_CHARS);
    expect(long.endsWith('…')).toBe(true);
    expect(reasonText('line one\r\nline\ttwo')).toBe('line one line two');
    const leaky = reasonText('denied: Authorization: Basic dXNlcjpzZWNyZXQ= password=hunter2 "token": "abc123" at https://admin:s3cret@lab.example/x');
    for (const secret of ['dXNlcjpzZWNyZXQ=', 'hunter2', 'abc123', 's3cret']) expect(leaky).not.toContain(secret);
    expect(leaky).toContain('password=****');
    expect(leaky).toContain('https://admin:****@lab.example/x');
  });

  it("is a negative ACK's code and text (MSA-3, else ERR-8, ERR-3's words or ERR-1)", () => {
    expect(transactionReason({ status: 'Completed', answer: { status: 400, head: ack('AE', 'Unknown patient id'), contentType: 'application/hl7-v2' } })).toBe('AE: Unknown patient id');
    expect(transactionReason({ status: 'Failed', answer: { status: 500, head: ack('AR', '', 'ERR||PID^1^3|101^Required field missing^HL70357|E||||Patient id is required') } })).toBe('AR: Patient id is required');
    expect(transactionReason({ status: 'Completed', answer: { status: 400, head: ack('CE', '', 'ERR|||207^Application internal error^HL70357|E') } })).toBe('CE: Application internal error');
    expect(transactionReason({ status: 'Failed', answer: { status: 500, head: ack('CR') } })).toBe('CR');
    // HL7's escapes are read back.
    expect(transactionReason({ status: 'Completed', answer: { status: 400, head: ack('AE', 'dose \\F\\ route \\S\\ site') } })).toBe('AE: dose | route ^ site');
    // An ACK of acceptance says nothing is wrong.
    expect(transactionReason({ status: 'Completed', answer: { status: 200, head: ack('AA') } })).toBeUndefined();
  });

  it('names the other route that failed when the primary answered well', () => {
    expect(transactionReason({ status: 'Completed with error(s)', answer: { status: 200 }, routes: [{ name: 'archive', status: 201 }, { name: 'audit', error: 'route audit did not answer within 50 ms' }] })).toBe('route audit: route audit did not answer within 50 ms');
    expect(transactionReason({ status: 'Completed', answer: { status: 200 }, routes: [{ name: 'copy', status: 404 }] })).toBe('route copy: 404');
  });

  it('is none for a success or a transaction still running', () => {
    expect(transactionReason({ status: 'Successful', answer: { status: 200 } })).toBeUndefined();
    expect(transactionReason({ status: 'Processing', error: 'x' })).toBeUndefined();
  });

  it('is read from an older record without reading its bodies', () => {
    expect(recordedReason({ status: 'Failed', error: { message: 'Interrupted: Junction stopped before the transaction completed' } })).toBe('Interrupted: Junction stopped before the transaction completed');
    expect(recordedReason({ status: 'Failed', response: { status: 503 } })).toBe('503');
    expect(recordedReason({ status: 'Failed', reason: 'AE: stored', response: { status: 400 } })).toBe('AE: stored');
  });
});

describe("an ACK's statement", () => {
  it('is null for what is not an ACK', () => {
    expect(ackStatementOf(Buffer.from('MSH|^~\\&|A|B|C|D|20260101||ADT^A01|1|P|2.5\rPID|1\r'))).toBeNull();
    expect(ackStatementOf(Buffer.from('not hl7'))).toBeNull();
  });
});
