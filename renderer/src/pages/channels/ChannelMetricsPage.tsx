/** One channel's metrics: load, response time and its status breakdown over a chosen period. */
import { useEffect, useMemo, useState } from 'react';
import { Anchor, Button, Grid, Group, Loader, Stack } from '@mantine/core';
import { Link, useParams } from 'react-router';
import { getChannel } from '../../api/channels';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { LoadChart, PeriodPicker, ResponseTimeChart, ServerZoneNote, StatusBreakdownChart } from '../../components/metrics/MetricsCharts';
import { statusTotals } from '../../components/metrics/metric-view';
import type { PeriodChoice } from '../../components/metrics/metric-view';
import { useMetrics } from '../../components/metrics/use-metrics';

export function ChannelMetricsPage() {
  const { id = '' } = useParams();
  const [period, setPeriod] = useState<PeriodChoice>('1d');
  const [name, setName] = useState<string | null>(null);
  const { points, statusItems, serverZone, loading, error, reload } = useMetrics(period, id);
  const totals = useMemo(() => statusTotals(statusItems), [statusItems]);

  useEffect(() => {
    const controller = new AbortController();
    // The name is only the title: without it the page still shows the numbers.
    getChannel(id, controller.signal).then(
      (channel) => setName(channel.name),
      () => undefined,
    );
    return () => controller.abort();
  }, [id]);

  return (
    <>
      <PageHeader title={name === null ? 'Channel metrics' : `${name}: metrics`}>
        <Anchor component={Link} to={`/channels/${id}`} size="sm">
          Channel settings
        </Anchor>
        <Anchor component={Link} to={`/transactions?channel=${encodeURIComponent(id)}`} size="sm">
          Transactions
        </Anchor>
        <Anchor component={Link} to="/channels" size="sm">
          Back to the channels
        </Anchor>
      </PageHeader>
      <Stack gap="sm">
        <Group justify="space-between">
          <Group gap="xs">
            <PeriodPicker value={period} onChange={setPeriod} />
            {loading && <Loader size="xs" aria-label="Loading metrics" />}
          </Group>
          <Button size="compact-sm" variant="default" onClick={reload}>
            Refresh
          </Button>
        </Group>
        <ErrorAlert error={error} action="load the channel's metrics" />
        <ServerZoneNote shown={serverZone} />
        <Grid gap="md">
          <Grid.Col span={{ base: 12, md: 6 }}>
            <LoadChart points={points} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 6 }}>
            <ResponseTimeChart points={points} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 6 }}>
            <StatusBreakdownChart totals={totals} />
          </Grid.Col>
        </Grid>
      </Stack>
    </>
  );
}
