/**
 * Export of the filtered list: the file is streamed from the server, counted as it arrives against the number of
 * matches, can be cancelled, and is saved through a download link when complete.
 */
import { useEffect, useState } from 'react';
import { Alert, Anchor, Button, Group, Modal, Progress, Radio, Stack, Switch, Text } from '@mantine/core';
import type { TransactionFilters } from '../../../../service/contracts/transactions';
import type { ExportFormat } from '../../api/transactions';
import { ErrorAlert } from '../../components/ErrorAlert';
import { formatExportBytes, useSaveWhenDone } from '../../components/export-download';
import { useTransactions } from '../../stores/transactions';

export interface ExportModalProps {
  opened: boolean;
  onClose: () => void;
  filters: TransactionFilters;
  /** Matches of the filters, for the progress; null while still counting. */
  total: number | null;
}

export function ExportModal({ opened, onClose, filters, total }: ExportModalProps) {
  const [format, setFormat] = useState<ExportFormat>('csv');
  const [bodies, setBodies] = useState(false);
  const exporting = useTransactions((s) => s.exporting);
  const start = useTransactions((s) => s.startExport);
  const cancel = useTransactions((s) => s.cancelExport);
  const reset = useTransactions((s) => s.resetExport);
  const link = useSaveWhenDone(exporting.status, exporting.url);

  // Leaving the page drops the file and stops a running export.
  useEffect(() => reset, [reset]);

  const close = () => {
    reset();
    onClose();
  };

  const running = exporting.status === 'running';
  const percent = exporting.total > 0 ? Math.min(100, (exporting.rows / exporting.total) * 100) : exporting.status === 'done' ? 100 : 0;
  const count = total ?? 0;

  return (
    <Modal opened={opened} onClose={close} title="Export transactions" size="lg">
      <Stack gap="sm">
        <Text size="sm">
          {total === null
            ? 'Counting the transactions that match the current filters…'
            : `${count.toLocaleString()} transaction${count === 1 ? '' : 's'} match${count === 1 ? 'es' : ''} the current filters and will be exported, newest first.`}
        </Text>
        <Radio.Group label="Format" value={format} onChange={(v) => setFormat(v === 'ndjson' ? 'ndjson' : 'csv')}>
          <Stack gap={6} mt={6}>
            <Radio value="csv" label="CSV" description="A spreadsheet: one row per transaction, without bodies" disabled={running} />
            <Radio value="ndjson" label="NDJSON" description="One JSON record per line, for other programs; can include bodies" disabled={running} />
          </Stack>
        </Radio.Group>
        <Switch
          label="Include bodies"
          description="Request and response bodies, up to 1 MB each (NDJSON only). They may hold patients' data."
          checked={bodies && format === 'ndjson'}
          disabled={format !== 'ndjson' || running}
          onChange={(e) => setBodies(e.currentTarget.checked)}
        />
        {exporting.status !== 'idle' && (
          <Stack gap={4}>
            <Progress
              value={percent}
              aria-label="Export progress"
              animated={running}
              color={exporting.status === 'failed' ? 'red' : exporting.status === 'cancelled' ? 'gray' : undefined}
            />
            <Text size="sm" aria-live="polite">
              {exporting.rows.toLocaleString()} of {exporting.total.toLocaleString()} transactions · {formatExportBytes(exporting.bytes)}
              {exporting.status === 'done' && ' · complete'}
              {exporting.status === 'cancelled' && ' · cancelled'}
            </Text>
          </Stack>
        )}
        {exporting.status === 'done' && exporting.url !== null && (
          <Alert color="teal" title="Export complete" role="status">
            <Text size="sm">
              The file{' '}
              <Anchor href={exporting.url} download={exporting.fileName} ref={link}>
                {exporting.fileName}
              </Anchor>{' '}
              was saved to your downloads. Click its name to save it again.
            </Text>
          </Alert>
        )}
        {exporting.status === 'cancelled' && (
          <Alert color="gray" title="Export cancelled">
            Nothing was saved.
          </Alert>
        )}
        {exporting.status === 'failed' && <ErrorAlert error={exporting.error} action="export the transactions" />}
        <Group justify="flex-end">
          {running ? (
            <Button color="red" variant="light" onClick={cancel}>
              Cancel export
            </Button>
          ) : (
            <>
              <Button variant="default" onClick={close}>
                Close
              </Button>
              <Button onClick={() => void start(filters, format, bodies && format === 'ndjson', total ?? 0)} disabled={total === null || total === 0}>
                Start export
              </Button>
            </>
          )}
        </Group>
      </Stack>
    </Modal>
  );
}
