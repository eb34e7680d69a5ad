/**
 * "Re-run all matching": before anything starts, the service's preview of the bulk re-run (how many match, how many
 * of them were re-run before or are re-runs themselves, how many cannot be re-run), and the choice, on by default,
 * to re-run only the latest attempt of each message, so an original and its earlier re-run never both go out again.
 */
import { useEffect, useState } from 'react';
import { Button, Checkbox, Group, List, Loader, Modal, Stack, Text } from '@mantine/core';
import type { BulkRerunPreview, TransactionFilters } from '../../../../service/contracts/transactions';
import { previewRerun } from '../../api/transactions';
import { ErrorAlert } from '../../components/ErrorAlert';

const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

export interface BulkRerunDialogProps {
  opened: boolean;
  filters: TransactionFilters;
  /** False when no filter is set (every transaction matches). */
  filtered: boolean;
  busy: boolean;
  onClose: () => void;
  onStart: (latestAttemptOnly: boolean) => void;
}

export function BulkRerunDialog({ opened, filters, filtered, busy, onClose, onStart }: BulkRerunDialogProps) {
  const [preview, setPreview] = useState<BulkRerunPreview | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [latestOnly, setLatestOnly] = useState(true);
  const filtersKey = JSON.stringify(filters);

  useEffect(() => {
    if (!opened) return;
    let stopped = false;
    setPreview(null);
    setError(null);
    setLatestOnly(true);
    previewRerun(JSON.parse(filtersKey) as TransactionFilters).then(
      (answer) => {
        if (!stopped) setPreview(answer);
      },
      (err: unknown) => {
        if (!stopped) setError(err);
      },
    );
    return () => {
      stopped = true;
    };
  }, [opened, filtersKey]);

  const count = preview === null ? 0 : latestOnly ? preview.latestAttempts : preview.rerunnable;
  const skipped = preview === null ? 0 : preview.rerunnable - preview.latestAttempts;
  const which = filtered ? 'that match the current filters' : 'there are (no filters are set, so this is every transaction)';

  return (
    <Modal opened={opened} onClose={onClose} title="Re-run all matching transactions">
      <Stack gap="sm">
        {preview === null && error === null && (
          <Group gap="xs" role="status">
            <Loader size="xs" aria-hidden />
            <Text size="sm">Counting the matching transactions and their earlier re-runs…</Text>
          </Group>
        )}
        <ErrorAlert error={error} action="count the matching transactions" />
        {preview !== null && (
          <>
            <Text size="sm">
              {count === preview.matching
                ? `This creates one re-run task for all ${plural(count, 'transaction', 'transactions')} ${which}.`
                : `This creates one re-run task for ${count.toLocaleString()} of the ${plural(preview.matching, 'transaction', 'transactions')} ${which}.`}{' '}
              Each is sent again through its channel&apos;s current routes.
            </Text>
            <List size="sm" aria-label="Of the matching transactions">
              <List.Item>{plural(preview.alreadyRerun, 'was already re-run', 'were already re-run')}</List.Item>
              <List.Item>{plural(preview.reruns, 'is itself a re-run', 'are themselves re-runs')} of an earlier transaction</List.Item>
              {preview.notRerunnable > 0 && <List.Item>{plural(preview.notRerunnable, 'cannot be re-run and is left out', 'cannot be re-run and are left out')}</List.Item>}
            </List>
            {preview.warnings.length > 0 && (
              <List size="sm" aria-label="Left out">
                {preview.warnings.map((warning) => (
                  <List.Item key={warning}>{warning}</List.Item>
                ))}
              </List>
            )}
            <Checkbox
              checked={latestOnly}
              onChange={(event) => setLatestOnly(event.currentTarget.checked)}
              label="Re-run only the latest attempt of each message (recommended)"
              description={`An original and its re-runs are attempts at the same message: only the newest is sent again, so no message goes out twice. ${
                skipped === 0 ? 'No earlier attempt is among these.' : `${plural(skipped, 'earlier attempt is', 'earlier attempts are')} skipped.`
              }`}
            />
            <Text size="sm" fw={600} aria-live="polite">
              {count === 0 ? 'Nothing would be re-run.' : `${plural(count, 'transaction', 'transactions')} will be re-run.`}
            </Text>
          </>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button loading={busy} disabled={preview === null || count === 0} onClick={() => onStart(latestOnly)}>
            Start re-run
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
