/**
 * Logs: Junction's own log lines (`GET /logs`), newest first, by level, time window and a text search, a page at a
 * time; or following new lines as they are written ("Follow new lines", the newest on top), by asking every two
 * seconds for the lines since the newest one shown. The console's own successful reads are logged at debug by the
 * service (domain/operations/request-log.ts), so they do not fill the default view. Polling rather than the live feed: the lines are read from the log files, which any process may
 * write, and one small read every two seconds costs the service next to nothing (see docs/operations/logs.md).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { Badge, Button, Code, Group, Loader, Paper, Select, Stack, Switch, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import type { LogEntry, LogLevelName } from '../../../../service/contracts/logs';
import { getLogs } from '../../api/logs';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { adminOnly } from '../../components/AdminOnly';
import { LEVELS, LEVEL_COLORS, PAGE_SIZE, SEARCH_DELAY_MS, TAIL_POLL_MS, WINDOWS, metaSummary, prependNew } from './logs-view';

function LogRow({ entry }: { entry: LogEntry }) {
  const [open, setOpen] = useState(false);
  const summary = metaSummary(entry.meta);
  return (
    <Table.Tr>
      <Table.Td style={{ whiteSpace: 'nowrap', verticalAlign: 'top' }}>
        <Text size="sm" title={entry.timestamp}>
          {new Date(entry.timestamp).toLocaleString()}
        </Text>
      </Table.Td>
      <Table.Td style={{ verticalAlign: 'top' }}>
        <Badge color={LEVEL_COLORS[entry.level]} variant="light">
          {entry.level}
        </Badge>
      </Table.Td>
      <Table.Td style={{ verticalAlign: 'top', overflowWrap: 'anywhere' }}>
        <Text size="sm">{entry.message === '' ? <em>(no message)</em> : entry.message}</Text>
        {summary !== '' && (
          <Group gap={4} wrap="nowrap" align="flex-start">
            <Text size="xs" c="dimmed" lineClamp={open ? undefined : 1} style={{ wordBreak: 'break-all', flex: 1, minWidth: 0 }}>
              {open ? null : summary}
            </Text>
            <Button variant="subtle" size="compact-xs" onClick={() => setOpen(!open)} aria-expanded={open}>
              {open ? 'Hide details' : 'Details'}
            </Button>
          </Group>
        )}
        {open && (
          <Code block mt={4} aria-label="Line details" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            {JSON.stringify(entry.meta, null, 2)}
          </Code>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

function Logs() {
  const [level, setLevel] = useState<LogLevelName>('info');
  const [windowValue, setWindowValue] = useState('5m');
  const [page, setPage] = useState(0);
  const [follow, setFollow] = useState(false);
  const [searchText, setSearchText] = useState('');
  const [search] = useDebouncedValue(searchText.trim(), SEARCH_DELAY_MS);
  const [rows, setRows] = useState<LogEntry[]>([]);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // The window is fixed when the list is loaded, so paging through it does not shift as time passes.
  const [until, setUntil] = useState(() => Date.now());
  const rowsRef = useRef<LogEntry[]>([]);
  rowsRef.current = rows;

  const windowMs = WINDOWS.find((w) => w.value === windowValue)?.ms ?? WINDOWS[0]!.ms;

  const load = useCallback(
    async (signal: AbortSignal) => {
      setLoading(true);
      try {
        const answer = await getLogs({ from: until - windowMs, until, level, search, order: 'newest', start: page * PAGE_SIZE, limit: PAGE_SIZE }, signal);
        setRows(answer);
        setError(null);
      } catch (err) {
        if ((err as Error).name !== 'AbortError') setError(err);
      } finally {
        if (!signal.aborted) setLoading(false);
      }
    },
    [until, windowMs, level, search, page],
  );

  useEffect(() => {
    if (follow) return;
    const abort = new AbortController();
    void load(abort.signal);
    return () => abort.abort();
  }, [follow, load]);

  // Following: the last window's lines first, then every poll asks for what came since the newest line shown.
  useEffect(() => {
    if (!follow) return;
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async (first: boolean) => {
      const newest = rowsRef.current[0];
      const from = first || newest === undefined ? Date.now() - windowMs : Date.parse(newest.timestamp);
      try {
        const answer = await getLogs({ from, level, search, order: 'newest', limit: 1000 }, abort.signal);
        setRows((shown) => prependNew(first ? [] : shown, answer));
        setError(null);
      } catch (err) {
        if ((err as Error).name === 'AbortError') return;
        setError(err);
      }
      if (!abort.signal.aborted) timer = setTimeout(() => void poll(false), TAIL_POLL_MS);
    };
    void poll(true);
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [follow, level, search, windowMs]);

  // A new search starts again at the first page of the newest lines.
  const searched = useRef(search);
  useEffect(() => {
    if (searched.current === search) return;
    searched.current = search;
    setPage(0);
    setUntil(Date.now());
  }, [search]);

  const restart = () => {
    setPage(0);
    setUntil(Date.now());
  };

  return (
    <>
      <PageHeader title="Logs">
        <Switch label="Follow new lines" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} />
        {!follow && (
          <Button variant="default" onClick={restart} loading={loading} loaderProps={{ type: 'dots' }}>
            Refresh
          </Button>
        )}
      </PageHeader>
      <Stack gap="sm">
        <Group align="flex-end">
          <Select
            label="Level"
            data={LEVELS}
            value={level}
            onChange={(v) => {
              setLevel((v ?? 'info'));
              restart();
            }}
            allowDeselect={false}
            w={200}
          />
          <Select
            label="Time"
            data={WINDOWS.map(({ value, label }) => ({ value, label }))}
            value={windowValue}
            onChange={(v) => {
              setWindowValue(v ?? '5m');
              restart();
            }}
            allowDeselect={false}
            w={200}
          />
          <TextInput
            label="Search"
            description="Words in the message or its details"
            placeholder="e.g. channel created, an id, an address"
            value={searchText}
            onChange={(e) => setSearchText(e.currentTarget.value)}
            maxLength={200}
            w={{ base: '100%', xs: 320 }}
          />
        </Group>
        <ErrorAlert error={error} action="load the logs" />
        <Group gap="xs" mih={28}>
          <Text size="sm" c="dimmed" aria-live="polite">
            {follow
              ? `Following: ${rows.length.toLocaleString()} ${rows.length === 1 ? 'line' : 'lines'}, newest first`
              : rows.length === 0
                ? loading
                  ? 'Loading…'
                  : 'No lines on this page'
                : `Lines ${(page * PAGE_SIZE + 1).toLocaleString()}–${(page * PAGE_SIZE + rows.length).toLocaleString()}, newest first`}
          </Text>
          {loading && <Loader size="xs" aria-label="Loading logs" />}
        </Group>
        {rows.length === 0 && !loading && error === null ? (
          <Paper withBorder p="lg">
            <Text c="dimmed">
              {search === ''
                ? 'No log lines at this level in this time. Choose a longer time or a lower level; if the log file is turned off (logging.file.enabled), there are none to show.'
                : `No log lines at this level in this time contain “${search}”. Try other words, a longer time or a lower level.`}
            </Text>
          </Paper>
        ) : (
          <Table striped highlightOnHover layout="fixed" aria-label="Log lines">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={200}>Time</Table.Th>
                <Table.Th w={90}>Level</Table.Th>
                <Table.Th>Message</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((entry, i) => (
                <LogRow key={`${entry.timestamp}-${i}`} entry={entry} />
              ))}
            </Table.Tbody>
          </Table>
        )}
        {!follow && (
          <Group justify="flex-end" gap="xs" component="nav" aria-label="Pages">
            <Button variant="default" size="xs" disabled={page === 0} onClick={() => setPage(page - 1)}>
              Previous page
            </Button>
            <Text size="sm" aria-current="page">
              Page {page + 1}
            </Text>
            <Button variant="default" size="xs" disabled={rows.length < PAGE_SIZE || loading} onClick={() => setPage(page + 1)}>
              Next page
            </Button>
          </Group>
        )}
      </Stack>
    </>
  );
}

export const LogsPage = adminOnly('Logs', "Only administrators can read Junction's logs.", Logs);
