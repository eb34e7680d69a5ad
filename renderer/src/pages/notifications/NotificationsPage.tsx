/**
 * Alerts and messages (admins): every alert, report, test message and set-password link Junction sent or tried to
 * send, newest first, with its outcome, filtered by kind and status and paged; and a form to send a test message.
 */
import { useCallback, useEffect, useState } from 'react';
import { Badge, Button, Group, Loader, NativeSelect, Paper, Stack, Table, Text } from '@mantine/core';
import type { Notification, NotificationKind, NotificationStatus } from '../../../../service/contracts/notifications';
import { NOTIFICATION_KINDS, NOTIFICATION_STATUSES } from '../../../../service/contracts/notifications';
import { listNotifications } from '../../api/notifications';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert } from '../../components/ErrorAlert';
import { adminOnly } from '../../components/AdminOnly';
import { KIND_LABELS, STATUS_VIEW } from './notification-view';
import { MessageLinksNotice } from './MessageLinksNotice';
import { TestMessageForm } from './TestMessageForm';

const PAGE_SIZE = 25;

const KIND_OPTIONS = [{ value: '', label: 'All kinds' }, ...NOTIFICATION_KINDS.map((k) => ({ value: k, label: KIND_LABELS[k] }))];
const STATUS_OPTIONS = [{ value: '', label: 'All statuses' }, ...NOTIFICATION_STATUSES.map((s) => ({ value: s, label: STATUS_VIEW[s].label }))];

const formatTime = (iso: string | undefined): string => (iso === undefined ? '' : new Date(iso).toLocaleString());

function StatusCell({ n }: { n: Notification }) {
  const view = STATUS_VIEW[n.status];
  return (
    <Stack gap={2}>
      <Badge color={view.color} variant="light" tt="none">
        {view.label}
      </Badge>
      {n.status === 'sent' && n.sentAt !== undefined && <Text size="xs" c="dimmed">{formatTime(n.sentAt)}</Text>}
      {n.status === 'pending' && n.nextAttemptAt !== undefined && <Text size="xs" c="dimmed">next try {formatTime(n.nextAttemptAt)}</Text>}
    </Stack>
  );
}

function NotificationRows({ rows }: { rows: Notification[] }) {
  return (
    <>
      {rows.map((n) => (
        <Table.Tr key={n._id}>
          <Table.Td>{formatTime(n.created)}</Table.Td>
          <Table.Td>{KIND_LABELS[n.kind]}</Table.Td>
          <Table.Td>{n.method === 'sms' ? 'SMS' : 'Email'}</Table.Td>
          <Table.Td style={{ overflowWrap: 'anywhere' }}>
            {n.to}
            {n.user !== undefined && n.user !== n.to && (
              <Text size="xs" c="dimmed">
                {n.user}
              </Text>
            )}
          </Table.Td>
          <Table.Td style={{ overflowWrap: 'anywhere' }}>{n.subject}</Table.Td>
          <Table.Td>
            <StatusCell n={n} />
          </Table.Td>
          <Table.Td>{n.attempts}</Table.Td>
          <Table.Td style={{ overflowWrap: 'anywhere' }}>
            <Text size="sm" c={n.status === 'failed' ? 'red' : undefined}>
              {n.lastError ?? ''}
            </Text>
          </Table.Td>
        </Table.Tr>
      ))}
    </>
  );
}

function Notifications() {
  const [kind, setKind] = useState<NotificationKind | ''>('');
  const [status, setStatus] = useState<NotificationStatus | ''>('');
  const [skip, setSkip] = useState(0);
  const [rows, setRows] = useState<Notification[]>([]);
  const [more, setMore] = useState(false);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [reloads, setReloads] = useState(0);

  const reload = useCallback(() => setReloads((n) => n + 1), []);

  useEffect(() => {
    const abort = new AbortController();
    setLoading(true);
    setError(null);
    // One more than a page tells whether there is an older page without counting them all.
    listNotifications({ kind: kind === '' ? undefined : kind, status: status === '' ? undefined : status, limit: PAGE_SIZE + 1, skip }, abort.signal).then(
      (found) => {
        setRows(found.slice(0, PAGE_SIZE));
        setMore(found.length > PAGE_SIZE);
        setLoading(false);
      },
      (err: unknown) => {
        if (abort.signal.aborted) return;
        setError(err);
        setLoading(false);
      },
    );
    return () => abort.abort();
  }, [kind, status, skip, reloads]);

  const page = Math.floor(skip / PAGE_SIZE) + 1;
  return (
    <Stack>
      <PageHeader title="Alerts and messages">
        <Button variant="default" onClick={reload} loading={loading}>
          Refresh
        </Button>
      </PageHeader>
      <Text size="sm" c="dimmed">
        Every alert, report, test message and set-password email Junction sent or tried to send, newest first. A failed send is retried with a growing pause;
        &quot;Held back&quot; alerts were kept back by a recipient&apos;s limit and go out with their next alert.
      </Text>
      <MessageLinksNotice />
      <Paper withBorder p="md">
        <TestMessageForm onSent={() => (skip === 0 ? reload() : setSkip(0))} />
      </Paper>
      <Group align="flex-end">
        <NativeSelect
          label="Kind"
          data={KIND_OPTIONS}
          value={kind}
          onChange={(e) => {
            setKind(e.currentTarget.value as NotificationKind | '');
            setSkip(0);
          }}
          w={180}
        />
        <NativeSelect
          label="Status"
          data={STATUS_OPTIONS}
          value={status}
          onChange={(e) => {
            setStatus(e.currentTarget.value as NotificationStatus | '');
            setSkip(0);
          }}
          w={180}
        />
        {loading && <Loader size="sm" aria-label="Loading messages" />}
      </Group>
      <ErrorAlert error={error} action="load the messages" />
      <Table.ScrollContainer minWidth={960}>
        <Table aria-label="Messages" aria-busy={loading} verticalSpacing="xs" striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th style={{ width: 150 }}>Time</Table.Th>
              <Table.Th style={{ width: 90 }}>Kind</Table.Th>
              <Table.Th style={{ width: 70 }}>Method</Table.Th>
              <Table.Th style={{ width: '18%' }}>To</Table.Th>
              <Table.Th>Subject</Table.Th>
              <Table.Th style={{ width: 130 }}>Status</Table.Th>
              <Table.Th style={{ width: 80 }}>Attempts</Table.Th>
              <Table.Th style={{ width: '18%' }}>Last error</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.length === 0 ? (
              <Table.Tr>
                <Table.Td colSpan={8}>
                  <Text c="dimmed" py="md" ta="center">
                    {loading ? 'Loading…' : kind !== '' || status !== '' ? 'No message matches the filters.' : 'No messages yet.'}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ) : (
              <NotificationRows rows={rows} />
            )}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Group justify="space-between" component="nav" aria-label="Pages of messages">
        <Button variant="default" disabled={skip === 0 || loading} onClick={() => setSkip(Math.max(0, skip - PAGE_SIZE))}>
          Newer
        </Button>
        <Text size="sm">Page {page}</Text>
        <Button variant="default" disabled={!more || loading} onClick={() => setSkip(skip + PAGE_SIZE)}>
          Older
        </Button>
      </Group>
    </Stack>
  );
}

export const NotificationsPage = adminOnly('Alerts and messages', 'Only administrators can see the messages Junction sends.', Notifications);
