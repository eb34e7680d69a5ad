/** An HL7 v2 message read for display: segments, field numbers, header and acknowledgement. */
import { describe, expect, it } from 'vitest';
import { SEGMENT_LIMIT, readHl7, segmentCounts, visibleSegments } from './hl7';
import { ORU_R01 } from './hl7.test-data';


describe('an HL7 v2 message read for display', () => {
  it('numbers the fields as HL7 does, MSH-1 being the field separator', () => {
    const message = readHl7(ORU_R01);
    expect(message.segments.map((s) => s.id)).toEqual(['MSH', 'PID', 'OBR', 'OBX', 'OBX', 'OBX']);
    const [msh, pid] = message.segments;
    expect(msh?.fields.slice(0, 4)).toEqual([
      { number: 1, text: '|' },
      { number: 2, text: '^~\\&' },
      { number: 3, text: 'ANALYSER' },
      { number: 4, text: 'LAB' },
    ]);
    expect(msh?.fields.find((f) => f.number === 18)?.text).toBe('UNICODE UTF-8');
    expect(pid?.fields[4]).toEqual({ number: 5, text: 'Nkosi^Thandi^M' });
    expect(message).toMatchObject({ messageType: 'ORU^R01^ORU_R01', controlId: 'MSG00042', fieldSeparator: '|', componentSeparator: '^' });
    expect(message).not.toHaveProperty('ackCode');
  });

  it('reads an acknowledgement’s outcome and reason from MSA, or from ERR-8 when MSA-3 is empty', () => {
    const ae = readHl7('MSH|^~\\&|JUNCTION|CLINIC|ANALYSER|LAB|20240501101501||ACK^R01^ACK|J1|P|2.5\rMSA|AE|MSG00042|Upstream did not answer in time\r');
    expect(ae).toMatchObject({ messageType: 'ACK^R01^ACK', ackCode: 'AE', ackText: 'Upstream did not answer in time' });
    const err = readHl7('MSH|^~\\&|A|B|C|D|20240501||ACK|J2|P|2.5\rMSA|AR|MSG1\rERR|||207^Application internal error^HL70357|E||||No route\r');
    expect(err).toMatchObject({ ackCode: 'AR', ackText: 'No route' });
    expect(readHl7('MSH|^~\\&|A|B|C|D|1||ACK|J3|P|2.5\rMSA|aa|MSG1\r')).toMatchObject({ ackCode: 'AA' });
  });

  it('uses the separators the header declares', () => {
    const message = readHl7('MSH#*~\\&#APP#FAC\rPID#1##42*X');
    expect(message).toMatchObject({ fieldSeparator: '#', componentSeparator: '*' });
    expect(message.segments[1]?.fields).toEqual([
      { number: 1, text: '1' },
      { number: 2, text: '' },
      { number: 3, text: '42*X' },
    ]);
  });

  it('still gives the segments of a message without a header or cut short', () => {
    expect(readHl7('PID|1||123\rOBX|1|NM').segments.map((s) => s.id)).toEqual(['PID', 'OBX']);
    expect(readHl7('MSH|^~\\&|LAB|CLI').segments[0]?.fields.map((f) => f.number)).toEqual([1, 2, 3, 4]);
  });

  it('draws the first segments of a long message until all are asked for', () => {
    const many = Array.from({ length: SEGMENT_LIMIT + 50 }, (_, i) => i);
    expect(visibleSegments(many, false)).toHaveLength(SEGMENT_LIMIT);
    expect(visibleSegments(many, true)).toHaveLength(SEGMENT_LIMIT + 50);
    expect(visibleSegments([1, 2], false)).toEqual([1, 2]);
  });

  it('sums up which segments a message holds', () => {
    expect(segmentCounts(readHl7(ORU_R01).segments)).toBe('MSH, PID, OBR, OBX ×3');
  });
});
