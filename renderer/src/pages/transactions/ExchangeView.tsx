/** The parts of an exchange: headers as a table, and the body. */
import { Code, Table, Text, Title } from '@mantine/core';
import type { TransactionRequestView, TransactionResponseView } from '../../../../service/contracts/transactions';
import { BodyView } from '../../components/BodyView';

export function HeadersTable({ headers, label }: { headers: Record<string, string> | undefined; label: string }) {
  const entries = Object.entries(headers ?? {});
  if (entries.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        No headers stored.
      </Text>
    );
  }
  return (
    <Table.ScrollContainer minWidth={400} type="native">
      <Table withTableBorder verticalSpacing={4} aria-label={label} style={{ tableLayout: 'fixed' }}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th w="30%">Name</Table.Th>
            <Table.Th>Value</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {entries.map(([name, value]) => (
            <Table.Tr key={name}>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>
                <Code>{name}</Code>
              </Table.Td>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>
                <Text size="sm" ff="monospace">
                  {value}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** A request or response: headers then body; `label` names them ("Request" gives "Request headers", "Request body"). */
export function PartView({ part, label, sameAsRequest = false }: { part: TransactionRequestView | TransactionResponseView; label: string; sameAsRequest?: boolean }) {
  const noBody = part.body === undefined && part.bodyRemoved !== true;
  return (
    <>
      <Title order={3} size="h5" mt="sm" mb={4}>
        Headers
      </Title>
      <HeadersTable headers={part.headers} label={`${label} headers`} />
      <Title order={3} size="h5" mt="md" mb={4}>
        Body
      </Title>
      {sameAsRequest && noBody ? (
        <section aria-label={`${label} body`}>
          <Text size="sm" c="dimmed">
            A route is sent the same body as the transaction&apos;s request (see the Request tab).
          </Text>
        </section>
      ) : (
        <BodyView label={`${label} body`} body={part.body} bodyTruncated={part.bodyTruncated} bodyRemoved={part.bodyRemoved} headers={part.headers} />
      )}
    </>
  );
}
