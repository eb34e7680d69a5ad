/**
 * The dashboard: today's transactions by status as cards and a chart, the latest transactions as they arrive, and
 * whether each mediator is online. Loaded once; the live feed keeps it current, and a reconnect loads it again. Until
 * a first message has gone through, a checklist on top walks an administrator to it (FirstRunChecklist.tsx).
 */
import { useEffect, useState } from 'react';
import { Anchor, Badge, Grid, Group, Paper, SimpleGrid, Skeleton, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { BarChart } from '@mantine/charts';
import { Link } from 'react-router';
import type { LiveTransaction } from '../../../../service/contracts/live-feed';
import { live } from '../../api/live';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { useDashboard } from '../../stores/dashboard';
import { DashboardMetrics } from './DashboardMetrics';
import { AttentionStrip } from './AttentionStrip';
import { RefusedToday } from './RefusedToday';
import { FirstRunChecklist } from './FirstRunChecklist';
import { STATUSES, STATUS_COLOR, formatTime } from '../../data/status';
import { StatusBadge } from '../../components/StatusBadge';
import { rowRequest } from '../../data/transport';

/** Seconds of silence after which a mediator's status is checked with the server (its default offline limit is 60). */
const SILENCE_CHECK_MS = 65_000;
/** How soon a mediator the server still calls online is checked again. */
const RECHECK_MS = 30_000;

function formatUptime(seconds: number | undefined): string {
  if (seconds === undefined) return '–';
  const s = Math.floor(seconds);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min`;
  return `${s} s`;
}

function clock(iso: string): string {
  return new Date(iso).toLocaleTimeString();
}

function StatusCards() {
  const counts = useDashboard((s) => s.counts);
  const since = useDashboard((s) => s.since);
  return (
    <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} spacing="sm" mb="md">
      {STATUSES.map((status) => {
        const value = counts?.[status];
        const to = `/transactions?${new URLSearchParams({ status, from: since }).toString()}`;
        return (
          <Paper
            key={status}
            component={Link}
            to={to}
            withBorder
            p="sm"
            style={{ borderLeft: `4px solid var(--mantine-color-${STATUS_COLOR[status]}-6)`, textDecoration: 'none', color: 'inherit' }}
          >
            {/* Named from what it shows ("Failed 3"), so the spoken name and the visible label agree (WCAG 2.5.3). */}
            <Text size="sm" c="dimmed" truncate>
              {status}
            </Text>
            {value === undefined ? (
              <Skeleton height={30} mt={4} width={60}>
                <VisuallyHidden>counting</VisuallyHidden>
              </Skeleton>
            ) : (
              <Text fz={28} fw={700} lh={1.2}>
                {value.toLocaleString()}
              </Text>
            )}
          </Paper>
        );
      })}
    </SimpleGrid>
  );
}

function StatusChart() {
  const counts = useDashboard((s) => s.counts);
  const data = STATUSES.map((status) => ({ status, Transactions: counts?.[status] ?? 0, color: `${STATUS_COLOR[status]}.6` }));
  const summary = counts === null ? 'Counting…' : STATUSES.map((s) => `${s} ${counts[s]}`).join(', ');
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="dashboard-chart-title">
      <Title order={2} size="h4" id="dashboard-chart-title" mb="sm">
        Today by status
      </Title>
      <div role="img" aria-label={`Bar chart of today's transactions by status: ${summary}`}>
        <BarChart
          h={220}
          data={data}
          dataKey="status"
          series={[{ name: 'Transactions', color: 'gray.6' }]}
          tickLine="y"
          withTooltip={counts !== null}
          xAxisProps={{ tickFormatter: (v: string) => (v === 'Completed with error(s)' ? 'With errors' : v), interval: 0, fontSize: 11 }}
          yAxisProps={{ allowDecimals: false, width: 40 }}
        />
      </div>
    </Paper>
  );
}

/**
 * Tells screen readers of each transaction as it arrives, politely and without moving focus. Only arrivals on the
 * live feed are news: the list as first loaded, and status changes of rows already there, are not announced.
 */
function ArrivalAnnouncer() {
  const [said, setSaid] = useState('');
  useEffect(
    () =>
      live.on('transaction.started', (event: LiveTransaction) => {
        const channel = useDashboard.getState().channels.find((c) => c._id === event.channelID);
        const request = rowRequest({ method: event.method, path: event.path, querystring: '' }, channel).name;
        // The time keeps two identical arrivals distinct, so the second is read out too.
        setSaid(`New transaction at ${new Date().toLocaleTimeString()}: ${request}${channel === undefined ? '' : ` on ${channel.name}`}`);
      }),
    [],
  );
  return (
    <VisuallyHidden role="status" aria-live="polite" data-testid="feed-announcer">
      {said}
    </VisuallyHidden>
  );
}

function LiveFeed() {
  const feed = useDashboard((s) => s.feed);
  const feedError = useDashboard((s) => s.feedError);
  const channels = useDashboard((s) => s.channels);
  const byId = new Map(channels.map((c) => [c._id, c]));
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="live-feed-title" h="100%">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4" id="live-feed-title">
          Live feed
        </Title>
        <Anchor component={Link} to="/transactions" size="sm">
          All transactions
        </Anchor>
      </Group>
      <ArrivalAnnouncer />
      <ErrorAlert error={feedError} action="load the latest transactions" />
      {feed.length === 0 && feedError === null ? (
        <Text size="sm" c="dimmed">
          No transactions yet. New ones appear here as they arrive.
        </Text>
      ) : (
        <Stack component="ol" gap={0} m={0} p={0} style={{ listStyle: 'none' }} aria-label="Latest transactions, newest first">
          {feed.map((item) => (
            <Group
              component="li"
              key={item.id}
              gap="sm"
              wrap="nowrap"
              py={6}
              style={{ borderBottom: '1px solid var(--mantine-color-gray-2)' }}
            >
              <Text size="xs" c="dimmed" w={72} style={{ flexShrink: 0 }}>
                {clock(item.at)}
              </Text>
              <StatusBadge status={item.status} />
              <Anchor component={Link} to={`/transactions/${item.id}`} size="sm" ff="monospace" truncate style={{ flex: 1, minWidth: 0 }}>
                {/* A tcp or tls channel's message is named by its transport: its POST / is a placeholder. */}
                {rowRequest({ method: item.method, path: item.path, querystring: '' }, byId.get(item.channelID)).name}
              </Anchor>
              {item.responseStatus !== undefined && (
                <Text size="xs" c="dimmed" style={{ flexShrink: 0 }}>
                  {item.responseStatus}
                </Text>
              )}
              {/* Narrower on a phone, so the row fits 390 px with the request still readable. */}
              <Text size="xs" c="dimmed" truncate maw={{ base: 90, sm: 140 }} style={{ flexShrink: 0 }}>
                {byId.get(item.channelID)?.name ?? item.channelID}
              </Text>
            </Group>
          ))}
        </Stack>
      )}
    </Paper>
  );
}

function MediatorHealth() {
  const mediators = useDashboard((s) => s.mediators);
  const error = useDashboard((s) => s.mediatorsError);
  const checkedAt = useDashboard((s) => s.heartbeatCheckedAt);
  const check = useDashboard((s) => s.checkHeartbeats);

  // A mediator that stops sending heartbeats sends nothing else either: ask the server once it has been silent.
  useEffect(() => {
    if (mediators === null) return;
    const due = mediators
      .filter((m) => m.online && m.lastHeartbeat !== undefined)
      .map((m) => Math.max(new Date(m.lastHeartbeat ?? 0).getTime() + SILENCE_CHECK_MS, checkedAt + RECHECK_MS));
    if (due.length === 0) return;
    const timer = setTimeout(() => void check(), Math.max(1000, Math.min(...due) - Date.now()));
    return () => clearTimeout(timer);
  }, [mediators, checkedAt, check]);

  if (mediators === null && error === null) return null;
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="mediators-title">
      <Title order={2} size="h4" id="mediators-title" mb="sm">
        Mediators
      </Title>
      <ErrorAlert error={error} action="load the mediators" />
      {mediators !== null && mediators.length === 0 && (
        <Text size="sm" c="dimmed">
          No mediators are registered.
        </Text>
      )}
      {mediators !== null && mediators.length > 0 && (
        <Table verticalSpacing={4} aria-label="Mediator health" style={{ tableLayout: 'fixed' }}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th w={90}>Status</Table.Th>
              <Table.Th w={120}>Last heartbeat</Table.Th>
              <Table.Th w={80}>Uptime</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {mediators.map((m) => (
              <Table.Tr key={m.urn}>
                <Table.Td>
                  <Text size="sm" truncate title={`${m.urn} (version ${m.version})`}>
                    {m.name}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Badge color={m.online ? 'teal' : 'gray'} variant="light" style={{ textTransform: 'none' }}>
                    {m.online ? 'Online' : 'Offline'}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Text size="xs" title={m.lastHeartbeat === undefined ? undefined : formatTime(m.lastHeartbeat)}>
                    {m.lastHeartbeat === undefined ? 'Never' : clock(m.lastHeartbeat)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="xs">{m.online ? formatUptime(m.uptime) : '–'}</Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}

export function DashboardPage() {
  const countsError = useDashboard((s) => s.countsError);

  useEffect(() => {
    const dashboard = useDashboard.getState();
    const loadAll = () => {
      void dashboard.loadCounts();
      void dashboard.loadFeed();
      void dashboard.loadChannels();
      void dashboard.loadMediators();
    };
    // Subscribe first, so nothing that happens while loading is missed.
    const offs = [
      live.on('transaction.started', (event: LiveTransaction) => dashboard.started(event)),
      live.on('transaction.completed', (event: LiveTransaction) => dashboard.completed(event)),
      live.on('mediator.heartbeat', (event) => dashboard.heartbeat(event)),
      live.onReconnect(loadAll),
    ];
    loadAll();
    // Today's counts start again at midnight.
    const now = new Date();
    const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1).getTime() - now.getTime();
    const timer = setTimeout(() => void dashboard.loadCounts(), midnight + 1000);
    return () => {
      for (const off of offs) off();
      clearTimeout(timer);
    };
  }, []);

  return (
    <>
      <PageHeader title="Dashboard" />
      <FirstRunChecklist />
      <AttentionStrip />
      <Title order={2} size="h4" mb="xs">
        Today&apos;s transactions
      </Title>
      <ErrorAlert error={countsError} action="count today's transactions" />
      <StatusCards />
      <RefusedToday />
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <LiveFeed />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Stack gap="md">
            <StatusChart />
            <MediatorHealth />
          </Stack>
        </Grid.Col>
      </Grid>
      <DashboardMetrics />
    </>
  );
}
