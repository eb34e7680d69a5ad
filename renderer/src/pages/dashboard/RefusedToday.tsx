/**
 * The dashboard's count of what was refused today (issue 35): requests and messages turned away before they became
 * transactions, as `GET /refusals` counts them for the channels the user may see, linking to the Refused list. Counted
 * again every half minute: refusals are not on the live feed.
 */
import { useEffect, useState } from 'react';
import { Paper, Skeleton, Text, VisuallyHidden } from '@mantine/core';
import { Link } from 'react-router';
import { listRefusals } from '../../api/refusals';
import { useDashboard } from '../../stores/dashboard';

const RECOUNT_MS = 30_000;

export function RefusedToday() {
  const since = useDashboard((s) => s.since);
  const [count, setCount] = useState<number | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    const abort = new AbortController();
    const recount = () => {
      listRefusals({ from: since, filterLimit: 1, filterPage: 0 }, abort.signal).then(
        (page) => {
          setCount(page.refused);
          setFailed(false);
        },
        (err: unknown) => {
          if ((err as Error | null)?.name !== 'AbortError') setFailed(true);
        },
      );
    };
    recount();
    const timer = setInterval(recount, RECOUNT_MS);
    return () => {
      abort.abort();
      clearInterval(timer);
    };
  }, [since]);

  return (
    <Paper
      component={Link}
      to={`/refusals?${new URLSearchParams({ from: since }).toString()}`}
      withBorder
      p="sm"
      mb="md"
      maw={260}
      style={{ display: 'block', borderLeft: '4px solid var(--mantine-color-orange-6)', textDecoration: 'none', color: 'inherit' }}
    >
      <Text size="sm" c="dimmed">
        Refused today
      </Text>
      {count === null ? (
        failed ? (
          <Text size="sm">Could not be counted</Text>
        ) : (
          <Skeleton height={30} mt={4} width={60}>
            <VisuallyHidden>counting</VisuallyHidden>
          </Skeleton>
        )
      ) : (
        <Text fz={28} fw={700} lh={1.2} data-testid="refused-today">
          {count.toLocaleString()}
        </Text>
      )}
    </Paper>
  );
}
