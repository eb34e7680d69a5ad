/**
 * The HL7 segment view drawn by React with Mantine (server rendering: the unit tests run in Node, without a DOM):
 * a real ORU^R01 as one line per segment, segment ids emphasised, fields named, and a long message capped.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { MantineProvider } from '@mantine/core';
import { describe, expect, it } from 'vitest';
import { Hl7View } from './Hl7View';
import { SEGMENT_LIMIT } from '../data/hl7';
import { ORU_R01 } from '../data/hl7.test-data';
import { loadFieldNamer } from '../data/hl7-field-names';

function render(body: string): string {
  return renderToStaticMarkup(createElement(MantineProvider, null, createElement(Hl7View, { body })));
}

/** The text of each segment line, tags removed and entities read. */
function lines(html: string): string[] {
  return [...html.matchAll(/<span[^>]*data-segment="[^"]*"[^>]*>(.*?)<\/span>(?=<span[^>]*data-segment|<\/code>|<\/pre>)/g)].map((m) =>
    (m[1] ?? '').replace(/<[^>]+>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#x27;/g, "'"),
  );
}

describe('the HL7 segment view', () => {
  it('draws an ORU^R01 as one line per segment, as sent', () => {
    const html = render(ORU_R01);
    expect(lines(html)).toEqual(ORU_R01.split('\r').filter((s) => s !== ''));
  });

  it('emphasises each segment id and names each field by its HL7 position', () => {
    const html = render(ORU_R01);
    for (const id of ['MSH', 'PID', 'OBR', 'OBX']) expect(html).toMatch(new RegExp(`data-segment="${id}"[^>]*><span[^>]*font-weight:\\s*700[^>]*>${id}</span>`));
    expect(html).toContain('title="PID-5"');
    expect(html).toContain('title="MSH-9"');
    expect(html).toContain('title="OBX-5"');
    // MSH-1 is the separator after the id, never a field of its own.
    expect(html).not.toContain('title="MSH-1"');
  });

  it('says what the message is: its type, control id and segments', () => {
    const html = render(ORU_R01);
    expect(html).toContain('ORU^R01^ORU_R01');
    expect(html).toContain('MSG00042');
    expect(html).toContain('6 segments: MSH, PID, OBR, OBX ×3');
  });

  it('shows an acknowledgement’s outcome in words', () => {
    const html = render('MSH|^~\\&|JUNCTION|CLINIC|ANALYSER|LAB|20240501101501||ACK^R01^ACK|J1|P|2.5\rMSA|AE|MSG00042|Upstream did not answer in time\r');
    expect(html).toContain('MSA-1 AE: error');
    expect(html).toContain('Upstream did not answer in time');
  });

  it('draws only the first segments of a long message and offers the rest', () => {
    const obx = Array.from({ length: 1000 }, (_, i) => `OBX|${i + 1}|NM|2093-3^Cholesterol^LN||5.${i % 10}|mmol/L`);
    const html = render([ORU_R01.split('\r')[0], ...obx].join('\r'));
    expect(lines(html)).toHaveLength(SEGMENT_LIMIT);
    expect(html).toContain('Show all 1,001 segments');
  });
});

describe('the HL7 segment view with field names', () => {
  it('names each field by position and name once the dictionary is loaded', async () => {
    const fieldNames = await loadFieldNamer('2.5');
    const html = renderToStaticMarkup(createElement(MantineProvider, null, createElement(Hl7View, { body: ORU_R01, fieldNames })));
    expect(html).toMatch(/title="PID-5 Patient Name"/i);
    expect(html).toMatch(/title="MSH-9 Message Type"/i);
  });
});
