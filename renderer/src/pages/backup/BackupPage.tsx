/**
 * Backup (admins): download a backup of the whole appliance now, follow the progress of the one being taken, see how
 * the last one ended, and the schedule with the backups it keeps. The status is polled: every second while a backup
 * runs, every few seconds otherwise.
 */
import { useCallback, useEffect, useState } from 'react';
import { Alert, Badge, Button, Code, Group, Paper, Progress, Stack, Table, Text, Title } from '@mantine/core';
import type { BackupRun, BackupStatus } from '../../../../service/contracts/backup';
import { BACKUP_URL, backupStatus } from '../../api/backup';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert } from '../../components/ErrorAlert';
import { adminOnly } from '../../components/AdminOnly';
import { formatBytes, progressPercent } from './backup-view';

const POLL_BUSY_MS = 1000;
const POLL_IDLE_MS = 5000;

const formatTime = (iso: string | undefined): string => (iso === undefined ? '' : new Date(iso).toLocaleString());
const TRIGGER_LABEL = { download: 'Download', schedule: 'Scheduled' } as const;

function CurrentRun({ run, state }: { run: BackupRun; state: BackupStatus['state'] }) {
  const percent = progressPercent(run);
  return (
    <Paper withBorder p="md" aria-label="Backup in progress">
      <Stack gap="xs">
        <Group justify="space-between">
          <Text fw={500}>
            {TRIGGER_LABEL[run.trigger]} backup started {formatTime(run.startedAt)}
          </Text>
          <Badge color="blue" variant="light" tt="none">
            {state === 'preparing' ? 'Copying the stores' : 'Writing the archive'}
          </Badge>
        </Group>
        <Progress value={percent} animated aria-label="Backup progress" />
        <Text size="sm" c="dimmed">
          {state === 'preparing'
            ? 'Taking consistent copies of the configuration, transactions, bodies and audits while traffic keeps flowing.'
            : `${run.entriesDone} of ${run.entriesTotal} files, ${formatBytes(run.bytesDone)} of ${formatBytes(run.bytesTotal)} (${percent}%)`}
        </Text>
      </Stack>
    </Paper>
  );
}

function LastRun({ run }: { run: BackupRun }) {
  const ok = run.outcome === 'succeeded';
  return (
    <Alert color={ok ? 'green' : 'red'} title={ok ? 'Last backup succeeded' : 'Last backup failed'} aria-label="Last backup">
      <Text size="sm">
        {TRIGGER_LABEL[run.trigger]} backup {run.file}, started {formatTime(run.startedAt)}, finished {formatTime(run.finishedAt)}: {run.entriesDone} files,{' '}
        {formatBytes(run.bytesDone)}.
      </Text>
      {run.error !== undefined && (
        <Text size="sm" c="red">
          {run.error}
        </Text>
      )}
    </Alert>
  );
}

function Backup() {
  const [status, setStatus] = useState<BackupStatus | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [polls, setPolls] = useState(0);
  const refresh = useCallback(() => setPolls((n) => n + 1), []);

  useEffect(() => {
    const abort = new AbortController();
    backupStatus(abort.signal).then(
      (found) => {
        setStatus(found);
        setError(null);
      },
      (err: unknown) => {
        if (!abort.signal.aborted) setError(err);
      },
    );
    return () => abort.abort();
  }, [polls]);

  const busy = status !== null && status.state !== 'idle';
  useEffect(() => {
    const timer = setTimeout(refresh, busy ? POLL_BUSY_MS : POLL_IDLE_MS);
    return () => clearTimeout(timer);
  }, [busy, polls, refresh]);

  return (
    <Stack>
      <PageHeader title="Backup">
        <Button component="a" href={BACKUP_URL} download disabled={busy} data-disabled={busy || undefined} onClick={(e) => (busy ? e.preventDefault() : setTimeout(refresh, 300))}>
          Download backup now
        </Button>
      </PageHeader>
      <Text size="sm" c="dimmed">
        A backup holds everything Junction keeps: the configuration, the transaction log with its bodies, the audit log, the server certificate and the keystore. It is taken while
        Junction keeps working. Restore one with <Code>node dist/service/index.js restore &lt;file&gt;</Code> into an empty data folder while the service is stopped (see
        “Backup and restore” in the manual, at /docs).
      </Text>
      {error !== null && <ErrorAlert error={error} />}
      {status?.current !== undefined && <CurrentRun run={status.current} state={status.state} />}
      {status?.last !== undefined && <LastRun run={status.last} />}
      {status !== null && (
        <Paper withBorder p="md">
          <Stack gap="xs">
            <Title order={2} size="h4">
              Scheduled backups
            </Title>
            {status.schedule.enabled ? (
              <Text size="sm" aria-label="Backup schedule">
                Every <Code>{status.schedule.schedule}</Code> into <Code>{status.schedule.folder}</Code>, keeping the newest {status.schedule.keep}.
              </Text>
            ) : (
              <Text size="sm" c="dimmed" aria-label="Backup schedule">
                Scheduled backups are off. Set <Code>backup.folder</Code> (and optionally <Code>backup.schedule</Code> and <Code>backup.keep</Code>) in the configuration to turn them on.
              </Text>
            )}
            {status.recent.length > 0 ? (
              <Table striped aria-label="Recent backups">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>File</Table.Th>
                    <Table.Th>Written</Table.Th>
                    <Table.Th>Size</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {status.recent.map((file) => (
                    <Table.Tr key={file.name}>
                      <Table.Td style={{ overflowWrap: 'anywhere' }}>{file.name}</Table.Td>
                      <Table.Td>{formatTime(file.created)}</Table.Td>
                      <Table.Td>{formatBytes(file.size)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            ) : (
              status.schedule.enabled && (
                <Text size="sm" c="dimmed">
                  No scheduled backup has been written yet.
                </Text>
              )
            )}
          </Stack>
        </Paper>
      )}
    </Stack>
  );
}

export const BackupPage = adminOnly('Backup', 'Only administrators can take and see backups.', Backup);
