/**
 * A transaction's place among the attempts of its message: a link back to the transaction it re-runs (parentID), and
 * links to its own re-runs (childIDs), each with its status, read when shown.
 */
import { useEffect, useState } from 'react';
import { Anchor, Group, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { TransactionView } from '../../../../service/contracts/transactions';
import { getTransactionSummary } from '../../api/transactions';
import { StatusBadge } from '../../components/StatusBadge';

// The statuses of this many re-runs are read; a transaction re-run more often lists the rest without them.
const MAX_STATUSES = 10;

function TxLink({ id, label }: { id: string; label?: string }) {
  return (
    <Anchor component={Link} to={`/transactions/${id}`} size="sm" ff="monospace" aria-label={label}>
      {id}
    </Anchor>
  );
}

/** The status of each re-run shown with a status, by id; a re-run that cannot be read shows none. */
function useStatuses(ids: readonly string[]): Record<string, string> {
  const [statuses, setStatuses] = useState<Record<string, string>>({});
  const key = ids.join(',');
  useEffect(() => {
    let stopped = false;
    const wanted = key === '' ? [] : key.split(',').slice(-MAX_STATUSES);
    void Promise.all(wanted.map((id) => getTransactionSummary(id).then((tx) => [id, tx.status] as const, () => null))).then((found) => {
      if (!stopped) setStatuses(Object.fromEntries(found.filter((f) => f !== null)));
    });
    return () => {
      stopped = true;
    };
  }, [key]);
  return statuses;
}

export function RerunLinks({ tx }: { tx: TransactionView }) {
  const children = tx.childIDs ?? [];
  const statuses = useStatuses(children);
  return (
    <Stack gap={4}>
      {tx.parentID !== undefined && (
        <Text size="sm">
          {tx.autoRetryAttempt > 0 ? `Automatic retry ${tx.autoRetryAttempt} of ` : 'Re-run of '}
          <TxLink id={tx.parentID} label={`Original transaction ${tx.parentID}`} />
        </Text>
      )}
      {children.length > 0 ? (
        <>
          <Text size="sm">Re-run as</Text>
          {children.map((child) => (
            <Group key={child} gap={6} wrap="nowrap">
              <TxLink id={child} label={`Re-run ${child}`} />
              {statuses[child] === undefined ? null : <StatusBadge status={statuses[child]} />}
            </Group>
          ))}
        </>
      ) : tx.wasRerun === true ? (
        <Text size="sm">Re-run before</Text>
      ) : tx.parentID === undefined ? (
        <Text size="sm">Not re-run</Text>
      ) : null}
    </Stack>
  );
}
