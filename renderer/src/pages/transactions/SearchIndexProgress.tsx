/**
 * For admins, a line above the transaction list while the search index is being built for older transactions (issue
 * 37): how far the backfill is, read again every few seconds until it is done, then nothing. Search still works
 * meanwhile, over what is indexed so far, and the line says so.
 */
import { useEffect, useState } from 'react';
import { Alert, Progress, Text } from '@mantine/core';
import type { SearchIndexStatus } from '../../../../service/contracts/transactions';
import { getSearchIndexStatus } from '../../api/transactions';

/** How often the progress is read while the backfill runs. */
const POLL_MS = 5000;

export function SearchIndexProgress() {
  const [status, setStatus] = useState<SearchIndexStatus | null>(null);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const controller = new AbortController();
    const read = () => {
      getSearchIndexStatus(controller.signal).then(
        (next) => {
          setStatus(next);
          if (next.enabled && !next.backfill.done) timer = setTimeout(read, POLL_MS);
        },
        // The list works without it; the status is only news, so a failed read is tried again later.
        () => {
          if (!controller.signal.aborted) timer = setTimeout(read, POLL_MS * 6);
        },
      );
    };
    read();
    return () => {
      controller.abort();
      if (timer !== null) clearTimeout(timer);
    };
  }, []);
  if (status === null || !status.enabled || status.backfill.done) return null;
  const { covered, total, percent } = status.backfill;
  return (
    <Alert color="blue" variant="light" p="xs" data-search-backfill>
      <Text size="sm">
        Indexing older messages for search: {covered.toLocaleString()} of {total.toLocaleString()} ({percent}%). Searches find only what is indexed so far.
      </Text>
      <Progress value={percent} size="sm" mt={4} aria-label={`Search index backfill ${percent}% done`} />
    </Alert>
  );
}
