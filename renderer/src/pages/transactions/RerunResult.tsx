/** What a bulk re-run or a re-run of selected rows did: the task it created (with a link to it) and the server's warnings. */
import { Alert, Anchor, List, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { CreatedTask } from '../../../../service/contracts/transactions';

export function RerunResult({ task, onClose }: { task: CreatedTask; onClose: () => void }) {
  const n = task.totalTransactions;
  return (
    <Stack gap="xs">
      <Alert color="teal" title="Re-run task created" role="status" withCloseButton closeButtonLabel="Dismiss" onClose={onClose}>
        <Text size="sm">
          {n === 1 ? 'One transaction is' : `${n.toLocaleString()} transactions are`} queued to be re-run.{' '}
          <Anchor component={Link} to={`/tasks/${task._id}`} size="sm">
            Open the task
          </Anchor>{' '}
          to follow its progress and see how each re-run went.
        </Text>
      </Alert>
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
