/**
 * "Check routes" (issue 36): connects to each route of a channel (and shakes hands over TLS) without sending a
 * message, and says per route whether it was reached or why not, in words.
 */
import { useCallback, useEffect, useState } from 'react';
import { Badge, Button, Group, Loader, Modal, Stack, Table, Text } from '@mantine/core';
import type { RouteCheckAnswer } from '../../../../service/contracts/channels';
import { checkRoutes } from '../../api/channels';
import { ErrorAlert } from '../../components/ErrorAlert';
import { CHECK_OUTCOME } from './status-words';

export interface CheckRoutesDialogProps {
  /** The channel whose routes are checked; null when closed. */
  channel: { _id: string; name: string } | null;
  onClose: () => void;
}

export function CheckRoutesDialog({ channel, onClose }: CheckRoutesDialogProps) {
  const [answer, setAnswer] = useState<RouteCheckAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [checking, setChecking] = useState(false);

  const run = useCallback((id: string) => {
    setChecking(true);
    setError(null);
    void checkRoutes(id)
      .then(setAnswer, setError)
      .finally(() => setChecking(false));
  }, []);

  // Nothing is sent to the routes, so the check starts as the dialog opens.
  useEffect(() => {
    setAnswer(null);
    if (channel !== null) run(channel._id);
  }, [channel, run]);

  const failed = answer?.routes.filter((r) => r.enabled && r.outcome !== 'ok').length ?? 0;
  return (
    <Modal opened={channel !== null} onClose={onClose} title={`Check routes of “${channel?.name ?? ''}”`} size="xl">
      <Stack>
        <Text size="sm">
          Junction opens a connection to each route, with the TLS handshake for secured ones, and closes it again. Nothing is sent to the receiving
          systems.
        </Text>
        <ErrorAlert error={error} action="check the routes" />
        {checking && answer === null && (
          <Group gap="xs">
            <Loader size="sm" aria-hidden />
            <Text size="sm" role="status">
              Checking the routes…
            </Text>
          </Group>
        )}
        {answer !== null && (
          <>
            <Text size="sm" fw={500} role="status" c={failed === 0 ? undefined : 'red'}>
              {failed === 0 ? 'Every route in use was reached.' : `${failed} of the routes in use could not be reached.`}
            </Text>
            <Table.ScrollContainer minWidth={560}>
              <Table verticalSpacing="xs" striped>
                <Table.Caption>Each route of the channel and what the check found</Table.Caption>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col" w="22%">
                      Route
                    </Table.Th>
                    <Table.Th scope="col" w="30%">
                      Address
                    </Table.Th>
                    <Table.Th scope="col">Result</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {answer.routes.map((route) => {
                    const outcome = CHECK_OUTCOME[route.outcome];
                    return (
                      <Table.Tr key={route.name} data-route-outcome={route.outcome}>
                        <Table.Td style={{ overflowWrap: 'anywhere' }}>
                          {route.name}
                          {!route.enabled && (
                            <Text size="xs" c="dimmed">
                              switched off
                            </Text>
                          )}
                        </Table.Td>
                        <Table.Td style={{ overflowWrap: 'anywhere' }}>
                          <Text size="sm" ff="monospace">
                            {route.target}
                          </Text>
                        </Table.Td>
                        <Table.Td>
                          <Stack gap={2} align="flex-start">
                            <Badge color={outcome.color} variant="light" style={{ textTransform: 'none' }}>
                              {outcome.label}
                            </Badge>
                            <Text size="xs" style={{ overflowWrap: 'anywhere' }}>
                              {route.message} ({route.ms} ms)
                            </Text>
                          </Stack>
                        </Table.Td>
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={() => channel !== null && run(channel._id)} loading={checking} disabled={channel === null}>
            Check again
          </Button>
          <Button onClick={onClose}>Close</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
