/**
 * Re-running one transaction from its page: the button asks first (a dialog naming the transaction, its channel and
 * its earlier re-runs), then the page follows the re-run until it has an outcome and shows it: the new transaction,
 * linked, with its status, or why it was not re-run.
 */
import { useEffect, useRef, useState } from 'react';
import { Alert, Anchor, Button, Group, List, Loader, Modal, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { TaskDetail } from '../../../../service/contracts/tasks';
import type { CreatedTask, TransactionStatus, TransactionView } from '../../../../service/contracts/transactions';
import { getTask } from '../../api/tasks';
import { ErrorAlert } from '../../components/ErrorAlert';
import { StatusBadge } from '../../components/StatusBadge';
import { STATUS_COLOR, formatTime } from '../../data/status';

/** How the transaction reads in the dialog: its request line (or how it arrived) and when. */
export interface RerunSubject {
  tx: TransactionView;
  /** "GET /lab/json" or "MLLP over TCP · ORU^R01". */
  line: string;
  channelName: string;
}

function Ids({ ids }: { ids: readonly string[] }) {
  return (
    <>
      {ids.map((id, i) => (
        <span key={id}>
          {i > 0 && ', '}
          <Text span ff="monospace" size="sm">
            {id}
          </Text>
        </span>
      ))}
    </>
  );
}

/** The Re-run button and the question it asks first. `onStarted` gets the task the re-run became. */
export function RerunButton({ subject, disabled, rerun, onStarted }: { subject: RerunSubject; disabled: boolean; rerun: () => Promise<CreatedTask>; onStarted: (task: CreatedTask) => void }) {
  const [opened, setOpened] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const { tx, line, channelName } = subject;
  const children = tx.childIDs ?? [];
  const close = () => {
    setOpened(false);
    setError(null);
  };
  const confirm = () => {
    setBusy(true);
    setError(null);
    rerun().then(
      (task) => {
        setBusy(false);
        close();
        onStarted(task);
      },
      (err: unknown) => {
        setBusy(false);
        setError(err);
      },
    );
  };
  return (
    <>
      <Button onClick={() => setOpened(true)} disabled={disabled}>
        Re-run
      </Button>
      <Modal opened={opened} onClose={close} title="Re-run this transaction?" centered>
        <Stack gap="sm">
          <Text size="sm">
            Transaction{' '}
            <Text span ff="monospace" size="sm">
              {tx._id}
            </Text>{' '}
            ({line}, received {formatTime(tx.request.timestamp)}) is sent again through the current routes of the channel{' '}
            <Text span fw={600} size="sm">
              {channelName}
            </Text>
            , as a new transaction linked to this one.
          </Text>
          {tx.parentID !== undefined && (
            <Text size="sm">
              It is itself {tx.autoRetryAttempt > 0 ? `automatic retry ${tx.autoRetryAttempt}` : 'a re-run'} of <Ids ids={[tx.parentID]} />.
            </Text>
          )}
          {children.length > 0 ? (
            // A note read with the question, not an announcement: nothing happened yet.
            <Alert color="yellow" role="note" title={children.length === 1 ? 'Already re-run once' : `Already re-run ${children.length} times`}>
              <Text size="sm">
                Earlier re-runs: <Ids ids={children} />. Re-running it again sends the same message once more.
              </Text>
            </Alert>
          ) : (
            <Text size="sm">It has not been re-run before.</Text>
          )}
          <ErrorAlert error={error} action="re-run the transaction" />
          <Group justify="flex-end">
            <Button variant="default" onClick={close} data-autofocus>
              Cancel
            </Button>
            <Button onClick={confirm} loading={busy}>
              Re-run now
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

// The re-run's task is read again this often until it has an outcome (a re-run takes as long as the channel's routes).
const FOLLOW_MS = [300, 600, 1000, 2000];

type Followed = { state: 'running' } | { state: 'done'; rerunID: string; status: TransactionStatus } | { state: 'refused'; error: string } | { state: 'stopped'; status: string };

function followed(task: TaskDetail): Followed {
  const item = task.transactions[0];
  if (item?.tstatus === 'Completed' && item.rerunID !== undefined && item.rerunStatus !== undefined) return { state: 'done', rerunID: item.rerunID, status: item.rerunStatus };
  if (item?.tstatus === 'Failed') return { state: 'refused', error: item.error ?? 'it was refused when its turn came' };
  if (task.status === 'Paused' || task.status === 'Cancelled') return { state: 'stopped', status: task.status.toLowerCase() };
  return { state: 'running' };
}

/**
 * The outcome of a single re-run: followed from its task until the new transaction is stored with its status, then
 * that transaction, linked. `onFinished` runs once it has one (the page reads the transaction again, with its link).
 */
export function RerunOutcome({ task, onClose, onFinished }: { task: CreatedTask; onClose: () => void; onFinished: () => void }) {
  const [now, setNow] = useState<Followed>({ state: 'running' });
  const [error, setError] = useState<unknown>(null);
  // The page gives a new function at each render; the task alone decides what is followed.
  const finished = useRef(onFinished);
  finished.current = onFinished;

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async (round: number) => {
      try {
        const detail = await getTask(task._id, { page: 0, limit: 1 });
        if (stopped) return;
        const next = followed(detail);
        setNow(next);
        setError(null);
        if (next.state !== 'running') {
          finished.current();
          return;
        }
      } catch (err) {
        if (stopped) return;
        setError(err);
      }
      timer = setTimeout(() => void read(round + 1), FOLLOW_MS[Math.min(round, FOLLOW_MS.length - 1)]);
    };
    void read(0);
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [task._id]);

  const taskLink = (
    <Anchor component={Link} to={`/tasks/${task._id}`} size="sm">
      Open its task
    </Anchor>
  );
  return (
    <Stack gap="xs">
      {now.state === 'running' && (
        <Alert color="blue" title="Re-running the transaction" role="status" withCloseButton closeButtonLabel="Dismiss" onClose={onClose}>
          <Group gap="xs">
            <Loader size="xs" aria-hidden />
            <Text size="sm">Sent again through its channel&apos;s current routes; waiting for their answer. {taskLink}</Text>
          </Group>
        </Alert>
      )}
      {now.state === 'done' && (
        <Alert
          color={now.status === 'Successful' ? 'teal' : STATUS_COLOR[now.status]}
          title={now.status === 'Failed' ? 'Re-run failed' : `Re-run finished: ${now.status}`}
          role="status"
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={onClose}
        >
          <Group gap="xs">
            <Text size="sm">The re-run is transaction</Text>
            <Anchor component={Link} to={`/transactions/${now.rerunID}`} size="sm" ff="monospace">
              {now.rerunID}
            </Anchor>
            <StatusBadge status={now.status} />
            {taskLink}
          </Group>
        </Alert>
      )}
      {now.state === 'refused' && (
        <Alert color="red" title="Not re-run" role="status" withCloseButton closeButtonLabel="Dismiss" onClose={onClose}>
          <Text size="sm">
            {now.error} {taskLink}
          </Text>
        </Alert>
      )}
      {now.state === 'stopped' && (
        <Alert color="yellow" title="Re-run not finished" role="status" withCloseButton closeButtonLabel="Dismiss" onClose={onClose}>
          <Text size="sm">
            Its task was {now.status} before the transaction was re-run. {taskLink}
          </Text>
        </Alert>
      )}
      <ErrorAlert error={error} action="follow the re-run" />
      {task.warnings.length > 0 && (
        <Alert color="yellow" title="Please note" role="alert">
          <List size="sm">
            {task.warnings.map((warning) => (
              <List.Item key={warning}>{warning}</List.Item>
            ))}
          </List>
        </Alert>
      )}
    </Stack>
  );
}
