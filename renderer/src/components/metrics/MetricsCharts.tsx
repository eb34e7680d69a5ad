/**
 * The metrics charts shared by the dashboard and a channel's metrics page: the period picker, load and response time
 * over the period, status counts per channel, and one channel's status breakdown. Every chart has its numbers as a
 * table: hidden from sight (screen readers still read it) until "Show table" is pressed.
 */
import { useState } from 'react';
import type { ReactNode } from 'react';
import { Alert, Button, Group, Paper, SegmentedControl, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { BarChart, DonutChart, LineChart } from '@mantine/charts';
import { PERIODS, STATUS_SERIES, isPeriodChoice } from './metric-view';
import type { ChannelStatusRow, PeriodChoice, SeriesPoint, StatusKey } from './metric-view';

export function PeriodPicker({ value, onChange }: { value: PeriodChoice; onChange: (value: PeriodChoice) => void }) {
  return (
    <SegmentedControl
      aria-label="Period"
      size="xs"
      value={value}
      onChange={(v) => {
        if (isPeriodChoice(v)) onChange(v);
      }}
      data={PERIODS.map((p) => ({ value: p.value, label: p.label }))}
    />
  );
}

/** Said when the server answered the time series in its own zone rather than this computer's. */
export function ServerZoneNote({ shown }: { shown: boolean }) {
  if (!shown) return null;
  return (
    <Alert color="yellow" title="Times grouped in the server's time zone">
      The server stores its metrics in a time zone whose hours or days do not line up with this computer&apos;s, so the
      load and response time are grouped by the server&apos;s hours and days. Totals are exact; a bucket may be shifted
      by the difference between the zones.
    </Alert>
  );
}

interface ChartFrameProps {
  id: string;
  title: string;
  /** What the chart shows, in words, for those who cannot see it. */
  summary: string;
  chart: ReactNode;
  table: ReactNode;
}

/** A titled chart with its table of numbers, shown or visually hidden. */
function ChartFrame({ id, title, summary, chart, table }: ChartFrameProps) {
  const [showTable, setShowTable] = useState(false);
  return (
    <Paper withBorder p="md" component="section" aria-labelledby={`${id}-title`} h="100%">
      <Group justify="space-between" mb="sm" wrap="nowrap">
        <Title order={3} size="h5" id={`${id}-title`}>
          {title}
        </Title>
        <Button size="compact-xs" variant="subtle" aria-expanded={showTable} aria-controls={`${id}-table`} onClick={() => setShowTable(!showTable)}>
          {showTable ? 'Hide table' : 'Show table'}
        </Button>
      </Group>
      <div role="img" aria-label={summary}>
        {chart}
      </div>
      <div id={`${id}-table`}>{showTable ? <Table.ScrollContainer minWidth={300} mah={320} mt="sm">{table}</Table.ScrollContainer> : <VisuallyHidden>{table}</VisuallyHidden>}</div>
    </Paper>
  );
}

function sum(points: readonly SeriesPoint[], key: 'total'): number {
  return points.reduce((n, p) => n + p[key], 0);
}

interface TimeSeriesChartProps {
  id: string;
  title: string;
  summary: string;
  points: SeriesPoint[];
  /** The one line drawn, named as in the table's second column. */
  series: { name: 'total' | 'avgResp'; label: string; color: string };
  unit?: string;
  yAxisProps: { allowDecimals?: boolean; width: number };
  /** Names the table for screen readers. */
  tableLabel: string;
  cell: (point: SeriesPoint) => ReactNode;
  /** The table's total row, if the values add up. */
  total?: number;
}

/** One value per bucket over the period, as a line and as a table by time. */
function TimeSeriesChart({ id, title, summary, points, series, unit, yAxisProps, tableLabel, cell, total }: TimeSeriesChartProps) {
  return (
    <ChartFrame
      id={id}
      title={title}
      summary={summary}
      chart={
        <LineChart
          h={200}
          data={points}
          dataKey="label"
          series={[series]}
          curveType="linear"
          withDots={points.length <= 31}
          tickLine="y"
          unit={unit}
          yAxisProps={yAxisProps}
          xAxisProps={{ minTickGap: 24, fontSize: 11 }}
        />
      }
      table={
        <Table aria-label={tableLabel} verticalSpacing={2}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Time</Table.Th>
              <Table.Th>{series.label}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {points.map((p) => (
              <Table.Tr key={p.at}>
                <Table.Td>{new Date(p.at).toLocaleString()}</Table.Td>
                <Table.Td>{cell(p)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
          {total !== undefined && (
            <Table.Tfoot>
              <Table.Tr>
                <Table.Th>Total</Table.Th>
                <Table.Td>{total}</Table.Td>
              </Table.Tr>
            </Table.Tfoot>
          )}
        </Table>
      }
    />
  );
}

/** Requests per bucket over the period. */
export function LoadChart({ points, id = 'metrics-load' }: { points: SeriesPoint[]; id?: string }) {
  const total = sum(points, 'total');
  const busiest = points.reduce<SeriesPoint | null>((best, p) => (best === null || p.total > best.total ? p : best), null);
  const summary = `Line chart of requests over the period: ${total} in all${busiest !== null && busiest.total > 0 ? `, most (${busiest.total}) at ${busiest.label}` : ''}.`;
  return (
    <TimeSeriesChart
      id={id}
      title="Load"
      summary={summary}
      points={points}
      series={{ name: 'total', label: 'Requests', color: 'blue.6' }}
      yAxisProps={{ allowDecimals: false, width: 40 }}
      tableLabel="Load by time"
      cell={(p) => p.total}
      total={total}
    />
  );
}

/** Mean response time per bucket (ms); buckets without requests are 0. */
export function ResponseTimeChart({ points, id = 'metrics-response' }: { points: SeriesPoint[]; id?: string }) {
  const busy = points.filter((p) => p.total > 0);
  const slowest = busy.reduce<SeriesPoint | null>((best, p) => (best === null || p.avgResp > best.avgResp ? p : best), null);
  const summary =
    slowest === null ? 'Line chart of mean response time: no requests in the period.' : `Line chart of mean response time in milliseconds: slowest ${slowest.avgResp} ms at ${slowest.label}.`;
  return (
    <TimeSeriesChart
      id={id}
      title="Response time"
      summary={summary}
      points={points}
      series={{ name: 'avgResp', label: 'Mean response time (ms)', color: 'grape.6' }}
      unit=" ms"
      yAxisProps={{ width: 60 }}
      tableLabel="Response time by time"
      cell={(p) => (p.total === 0 ? '–' : p.avgResp)}
    />
  );
}

function statusHeader(): ReactNode {
  return STATUS_SERIES.map((s) => <Table.Th key={s.key}>{s.label}</Table.Th>);
}

/** Stacked status counts per channel over the period. */
export function ChannelStatusChart({ rows, id = 'metrics-channels' }: { rows: ChannelStatusRow[]; id?: string }) {
  const summary =
    rows.length === 0
      ? 'Bar chart of transactions by channel and status: none in the period.'
      : `Bar chart of transactions by channel and status: ${rows.map((r) => `${r.name} ${r.total}`).join(', ')}.`;
  return (
    <ChartFrame
      id={id}
      title="Status by channel"
      summary={summary}
      chart={
        rows.length === 0 ? (
          <Text size="sm" c="dimmed">
            No transactions in this period.
          </Text>
        ) : (
          <BarChart
            h={Math.max(160, 40 * rows.length + 60)}
            data={rows}
            dataKey="name"
            type="stacked"
            orientation="vertical"
            series={STATUS_SERIES.map((s) => ({ name: s.key, label: s.label, color: s.color }))}
            withLegend
            yAxisProps={{ width: 140 }}
            xAxisProps={{ allowDecimals: false }}
          />
        )
      }
      table={
        <Table aria-label="Status by channel" verticalSpacing={2}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Channel</Table.Th>
              {statusHeader()}
              <Table.Th>Total</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((r) => (
              <Table.Tr key={r.channelID}>
                <Table.Th scope="row">{r.name}</Table.Th>
                {STATUS_SERIES.map((s) => (
                  <Table.Td key={s.key}>{r[s.key]}</Table.Td>
                ))}
                <Table.Td>{r.total}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      }
    />
  );
}

/** One channel's status counts over the period, as a donut. */
export function StatusBreakdownChart({ totals, id = 'metrics-status' }: { totals: Record<StatusKey | 'total', number>; id?: string }) {
  const data = STATUS_SERIES.map((s) => ({ name: s.label, value: totals[s.key], color: s.color }));
  const summary =
    totals.total === 0
      ? 'Donut chart of transactions by status: none in the period.'
      : `Donut chart of transactions by status: ${STATUS_SERIES.map((s) => `${s.label} ${totals[s.key]}`).join(', ')}.`;
  return (
    <ChartFrame
      id={id}
      title="Status"
      summary={summary}
      chart={
        totals.total === 0 ? (
          <Text size="sm" c="dimmed">
            No transactions in this period.
          </Text>
        ) : (
          <Group justify="center">
            <DonutChart data={data.filter((d) => d.value > 0)} chartLabel={totals.total} withLabelsLine={false} size={160} thickness={24} />
          </Group>
        )
      }
      table={
        <Table aria-label="Status counts" verticalSpacing={2}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Status</Table.Th>
              <Table.Th>Transactions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.map((d) => (
              <Table.Tr key={d.name}>
                <Table.Th scope="row">{d.name}</Table.Th>
                <Table.Td>{d.value}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
          <Table.Tfoot>
            <Table.Tr>
              <Table.Th scope="row">Total</Table.Th>
              <Table.Td>{totals.total}</Table.Td>
            </Table.Tr>
          </Table.Tfoot>
        </Table>
      }
    />
  );
}
