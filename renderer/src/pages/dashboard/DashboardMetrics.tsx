/** The dashboard's metrics: load and response time over a chosen period, and status counts per channel. */
import { useMemo, useState } from 'react';
import { Button, Grid, Group, Loader, Stack, Title } from '@mantine/core';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useDashboard } from '../../stores/dashboard';
import { ChannelStatusChart, LoadChart, PeriodPicker, ResponseTimeChart, ServerZoneNote } from '../../components/metrics/MetricsCharts';
import { channelStatusRows } from '../../components/metrics/metric-view';
import type { PeriodChoice } from '../../components/metrics/metric-view';
import { useMetrics } from '../../components/metrics/use-metrics';

export function DashboardMetrics() {
  const [period, setPeriod] = useState<PeriodChoice>('1d');
  const { points, statusItems, serverZone, loading, error, reload } = useMetrics(period);
  // The dashboard already keeps the channel names (and reloads them when an unknown channel shows up in the feed).
  const channels = useDashboard((s) => s.channels);
  const rows = useMemo(() => channelStatusRows(statusItems, new Map(channels.map((c) => [c._id, c.name]))), [statusItems, channels]);
  return (
    <Stack gap="sm" mt="md" component="section" aria-labelledby="dashboard-metrics-title">
      <Group justify="space-between">
        <Group gap="xs">
          <Title order={2} size="h4" id="dashboard-metrics-title">
            Metrics
          </Title>
          {loading && <Loader size="xs" aria-label="Loading metrics" />}
        </Group>
        <Group gap="xs">
          <PeriodPicker value={period} onChange={setPeriod} />
          <Button size="compact-sm" variant="default" onClick={reload}>
            Refresh
          </Button>
        </Group>
      </Group>
      <ErrorAlert error={error} action="load the metrics" />
      <ServerZoneNote shown={serverZone} />
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 6 }}>
          <LoadChart points={points} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 6 }}>
          <ResponseTimeChart points={points} />
        </Grid.Col>
        <Grid.Col span={12}>
          <ChannelStatusChart rows={rows} />
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
