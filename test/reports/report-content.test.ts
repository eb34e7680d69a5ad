/** One user's report table and its words (domain/alerts/reports.ts). */
import { describe, expect, it } from 'vitest';
import type { MetricBucket } from '../../service/domain/operations/metric-buckets.js';
import { latestDuePeriod, reportListUrl, reportMessage, reportTable } from '../../service/domain/alerts/reports.js';
import type { ReportChannel } from '../../service/domain/alerts/reports.js';
import { CONSOLE, htmlRow, textRow } from './fixture.js';

const ZONE = 'Africa/Nairobi';
const period = latestDuePeriod('daily', new Date('2026-11-24T04:00:00Z'), ZONE);

function bucket(channelID: string, counts: Partial<MetricBucket>): MetricBucket {
  const base = { successful: 0, completed: 0, completedWithErrors: 0, failed: 0, processing: 0, totalResponseTime: 0, ...counts };
  const requests = base.successful + base.completed + base.completedWithErrors + base.failed + base.processing;
  return { channelID, period: 'hour', startTime: period.from, timeZone: ZONE, requests, minResponseTime: 0, maxResponseTime: 0, ...base };
}

const channels: ReportChannel[] = [
  { _id: 'a', name: 'Lab results', status: 'enabled' },
  { _id: 'b', name: 'Old feed', status: 'disabled' },
  { _id: 'c', name: 'Paused feed', status: 'disabled' },
  { _id: 'd', name: 'Gone feed', status: 'deleted' },
  { _id: 'e', name: 'Quiet <b>"feed"</b>', status: 'enabled' },
  { _id: 'f', name: 'Secret', status: 'enabled' },
];
const buckets = [
  bucket('a', { successful: 2, failed: 1, totalResponseTime: 300 }),
  bucket('a', { successful: 1, completedWithErrors: 1, processing: 1, totalResponseTime: 201 }),
  bucket('c', { completed: 2, totalResponseTime: 3000 }),
  bucket('d', { failed: 1, totalResponseTime: 10 }),
  bucket('f', { successful: 5, totalResponseTime: 50 }),
  bucket('zz', { successful: 1, totalResponseTime: 7 }),
];

describe('the report table', () => {
  it('has a row per viewable channel that is enabled or had traffic, summed over buckets, and the totals', () => {
    const table = reportTable(buckets, channels, new Set(['a', 'b', 'c', 'd', 'e']));
    expect(table.rows.map((r) => r.name)).toEqual(['Gone feed', 'Lab results', 'Paused feed', 'Quiet <b>"feed"</b>']);
    const lab = table.rows.find((r) => r.channelID === 'a');
    expect(lab).toMatchObject({ total: 6, successful: 3, completed: 0, completedWithErrors: 1, failed: 1, processing: 1, totalResponseTime: 501, avgResponseMs: 84 });
    expect(table.rows.find((r) => r.channelID === 'e')).toMatchObject({ total: 0, avgResponseMs: 0 });
    expect(table.totals).toMatchObject({ channelID: null, total: 9, successful: 3, completed: 2, completedWithErrors: 1, failed: 2, processing: 1, totalResponseTime: 3511, avgResponseMs: 390 });
  });

  it('gives admins every channel, and buckets of a channel no longer on record', () => {
    const table = reportTable(buckets, channels, 'all');
    expect(table.rows.map((r) => r.channelID)).toEqual(['zz', 'd', 'a', 'c', 'e', 'f']);
    expect(table.totals.total).toBe(15);
  });

  it('is empty for a user who may view nothing', () => {
    const table = reportTable(buckets, channels, new Set());
    expect(table.rows).toEqual([]);
    expect(table.totals.total).toBe(0);
  });
});

describe('the report message', () => {
  const table = reportTable(buckets, channels, new Set(['a', 'c', 'e']));
  const message = reportMessage({ period, table, timeZone: ZONE, instance: 'Clinic\n<North>', consoleUrl: `${CONSOLE}/`, generatedAt: new Date('2026-11-24T04:00:05Z') });

  it('has the subject of its kind and instance, on one line', () => {
    expect(message.subject).toBe('Daily report for Clinic <North>');
  });

  it('shows the same numbers in the plain text and the HTML, with the unit and the period named', () => {
    // Columns: total, successful, completed, completed with errors, failed, processing, average (ms).
    expect(textRow(message.text, 'Lab results')).toEqual(['6', '3', '0', '1', '1', '1', '84']);
    expect(textRow(message.text, 'Paused feed')).toEqual(['2', '0', '2', '0', '0', '0', '1500']);
    expect(textRow(message.text, 'All channels')).toEqual(['8', '3', '2', '1', '1', '1', '438']);
    expect(htmlRow(message.html, 'Lab results')).toEqual(['Lab results', '6', '3', '0', '1', '1', '1', '84']);
    expect(htmlRow(message.html, 'All channels')).toEqual(['All channels', '8', '3', '2', '1', '1', '1', '438']);
    for (const body of [message.text, message.html]) {
      expect(body).toContain('Monday 23 November 2026 00:00 to Tuesday 24 November 2026 00:00 (Africa/Nairobi)');
      expect(body).toContain('Average response (ms)');
      expect(body).not.toContain('Secret');
    }
  });

  it('escapes channel names and the instance in the HTML', () => {
    expect(message.html).toContain('Quiet &lt;b&gt;&quot;feed&quot;&lt;/b&gt;');
    expect(message.html).toContain('Clinic &lt;North&gt;');
    expect(message.html).not.toContain('<b>"feed"');
    expect(message.text).toContain('Quiet <b>"feed"</b>');
  });

  it('links counts to the console list filtered by channel, status and period, and names to the channel', () => {
    const failedLab = reportListUrl(CONSOLE, period, 'a', 'Failed');
    expect(failedLab).toBe(`${CONSOLE}/#/transactions?status=Failed&channel=a&from=2026-11-22T21%3A00%3A00.000Z&to=2026-11-23T20%3A59%3A59.999Z`);
    expect(message.html).toContain(`href="${failedLab.replace(/&/g, '&amp;')}"`);
    expect(message.html).toContain(`href="${CONSOLE}/#/channels/a"`);
    // The totals' cells list every channel of the status; a zero has no link.
    expect(message.html).toContain(`href="${reportListUrl(CONSOLE, period, null, 'Completed with error(s)').replace(/&/g, '&amp;')}"`);
    expect(htmlRow(message.html, 'Quiet &lt;b&gt;&quot;feed&quot;&lt;/b&gt;')).toEqual(['Quiet &lt;b&gt;&quot;feed&quot;&lt;/b&gt;', '0', '0', '0', '0', '0', '0', '0']);
    expect(message.html.split('\n').find((l) => l.includes('Quiet'))).not.toContain('#/transactions');
  });
});
