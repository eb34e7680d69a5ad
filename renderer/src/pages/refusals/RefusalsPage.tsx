/**
 * Refused requests and messages (issue 35), beside the transactions: what Junction turned away before it became a
 * transaction, one row per minute, sender, channel and reason with how many, newest first, filtered in the URL.
 */
import { useEffect, useMemo } from 'react';
import type { CSSProperties } from 'react';
import { Badge, Button, Group, Loader, Paper, Stack, Table, Text } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { REFUSAL_KINDS } from '../../../../service/contracts/refusals';
import type { Refusal } from '../../../../service/contracts/refusals';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ChoiceFilter, DateFilter, FilterPanel, TextFilter } from '../../components/FilterPanel';
import { PageHeader } from '../../components/PageHeader';
import { PageSizeSelect } from '../../components/PageSizeSelect';
import { REFUSAL_WORDS, listenerWords, refusalLabel } from '../../data/refusals';
import { formatShortTime, formatTime } from '../../data/status';
import { useRefusals } from '../../stores/refusals';
import { EMPTY_REFUSAL_FILTERS, PAGE_SIZES, addressProblem, hasRefusalFilters, paramsFromRefusalQuery, refusalApiQuery, refusalDateProblem, refusalQueryFromParams } from './filters';
import type { RefusalFilters, RefusalListQuery } from './filters';

const REASON_OPTIONS = REFUSAL_KINDS.map((reason) => ({ value: reason, label: REFUSAL_WORDS[reason].label }));
const wrap: CSSProperties = { overflowWrap: 'anywhere', fontSize: 'var(--mantine-font-size-sm)' };

function RefusalRow({ row }: { row: Refusal }) {
  const when = row.count === 1 || row.firstAt === row.lastAt ? formatShortTime(row.lastAt) : `${formatShortTime(row.firstAt)} – ${formatShortTime(row.lastAt)}`;
  return (
    <Table.Tr>
      <Table.Td title={formatTime(row.lastAt)} style={wrap}>
        {when}
      </Table.Td>
      <Table.Td>
        <Badge color="orange" variant="light" radius="sm" style={{ textTransform: 'none' }} title={REFUSAL_WORDS[row.reason].help}>
          {refusalLabel(row.reason)}
        </Badge>
      </Table.Td>
      <Table.Td style={wrap}>{row.channelName ?? <Text span c="dimmed" size="sm">none</Text>}</Table.Td>
      <Table.Td style={wrap}>{listenerWords(row.listener, row.port)}</Table.Td>
      <Table.Td style={wrap}>{row.address}</Table.Td>
      <Table.Td style={wrap}>{row.client ?? '–'}</Table.Td>
      <Table.Td ta="right">{row.count.toLocaleString()}</Table.Td>
      <Table.Td style={wrap}>{row.detail}</Table.Td>
    </Table.Tr>
  );
}

function RefusalTable({ rows, busy }: { rows: Refusal[]; busy: boolean }) {
  return (
    <Table.ScrollContainer minWidth={1000}>
      <Table aria-label="Refused requests and messages" aria-busy={busy} verticalSpacing="xs" striped highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th style={{ width: 150 }}>Time</Table.Th>
            <Table.Th style={{ width: 170 }}>Reason</Table.Th>
            <Table.Th>Channel</Table.Th>
            <Table.Th>Where</Table.Th>
            <Table.Th>Address</Table.Th>
            <Table.Th>Client</Table.Th>
            <Table.Th ta="right">Count</Table.Th>
            <Table.Th>What the sender was told</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <RefusalRow key={row._id} row={row} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function RefusalsPage() {
  const [params, setParams] = useSearchParams();
  const query = useMemo(() => refusalQueryFromParams(params), [params]);
  const apiKey = JSON.stringify(refusalApiQuery(query));
  const dateProblem = refusalDateProblem(query.filters);
  const { rows, total, refused, loading, error, channels, load, loadChannels } = useRefusals();

  useEffect(() => {
    void loadChannels();
  }, [loadChannels]);
  useEffect(() => {
    if (dateProblem === null) void load(JSON.parse(apiKey) as ReturnType<typeof refusalApiQuery>);
  }, [apiKey, dateProblem, load]);

  const setQuery = (next: RefusalListQuery) => setParams(paramsFromRefusalQuery(next));
  const change = (patch: Partial<RefusalFilters>) => setQuery({ filters: { ...query.filters, ...patch }, page: 1, size: query.size });
  const refresh = () => {
    if (dateProblem === null) void load(JSON.parse(apiKey) as ReturnType<typeof refusalApiQuery>);
  };
  const first = (query.page - 1) * query.size + 1;
  const last = (query.page - 1) * query.size + rows.length;
  const pages = Math.max(1, Math.ceil(total / query.size));

  return (
    <>
      <PageHeader title="Refused">
        <Button variant="default" onClick={refresh} loading={loading} loaderProps={{ type: 'dots' }}>
          Refresh
        </Button>
      </PageHeader>
      <Text size="sm" c="dimmed" mb="sm">
        Requests and messages Junction turned away before they became transactions: no channel matched, the sender was not allowed, a limit was reached. Repeats from one address are counted per minute.
      </Text>

      <FilterPanel
        dateProblem={dateProblem}
        onClear={() => setQuery({ filters: EMPTY_REFUSAL_FILTERS, page: 1, size: query.size })}
        beside={
          <Text size="xs" c="dimmed">
            Channels you may see the transactions of are shown; refusals with no channel are shown to administrators.
          </Text>
        }
      >
        <DateFilter label="From" value={query.filters.from} onCommit={(from) => change({ from })} />
        <DateFilter label="To" value={query.filters.to} end onCommit={(to) => change({ to })} />
        <ChoiceFilter label="Channel" thing="channel" data={channels} value={query.filters.channel} onChange={(channel) => change({ channel })} searchable="long" keepUnknown />
        <ChoiceFilter label="Reason" thing="reason" data={REASON_OPTIONS} value={query.filters.reason} onChange={(reason) => change({ reason })} />
        <TextFilter label="Address" placeholder="Any address" description="The sender's address, exactly" value={query.filters.address} problem={addressProblem} onCommit={(address) => change({ address })} />
      </FilterPanel>

      <Stack gap="sm">
        <ErrorAlert error={error} action="load the refusals" />
        <Group gap="xs" mih={28}>
          <Text size="sm" c="dimmed" aria-live="polite">
            {loading && rows.length === 0
              ? 'Loading…'
              : rows.length === 0
                ? 'No refusals on this page'
                : `Rows ${first.toLocaleString()}–${last.toLocaleString()} of ${total.toLocaleString()}, ${refused.toLocaleString()} refused in all, newest first`}
          </Text>
          {loading && <Loader size="xs" aria-label="Loading refusals" />}
        </Group>
        {dateProblem !== null ? (
          <Paper withBorder p="lg">
            <Text>{dateProblem}</Text>
          </Paper>
        ) : rows.length === 0 && !loading && error === null ? (
          <Paper withBorder p="lg">
            <Text c="dimmed">{hasRefusalFilters(query.filters) ? 'No refusals match these filters.' : 'Nothing has been refused.'}</Text>
          </Paper>
        ) : (
          <RefusalTable rows={rows} busy={loading} />
        )}
        <Group justify="space-between">
          <PageSizeSelect sizes={PAGE_SIZES} value={query.size} onChange={(size) => setQuery({ filters: query.filters, page: 1, size })} />
          <Group gap="xs" component="nav" aria-label="Pages">
            <Button variant="default" size="xs" disabled={query.page <= 1} onClick={() => setQuery({ ...query, page: query.page - 1 })}>
              Previous page
            </Button>
            <Text size="sm" aria-current="page">
              Page {query.page} of {pages}
            </Text>
            <Button variant="default" size="xs" disabled={query.page >= pages || loading} onClick={() => setQuery({ ...query, page: query.page + 1 })}>
              Next page
            </Button>
          </Group>
        </Group>
      </Stack>
    </>
  );
}
