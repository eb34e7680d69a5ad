/** The parts of an exchange: headers as a table, and the body. */
import { Code, Table, Text, Title } from '@mantine/core';
import type { TransactionRequestView, TransactionResponseView } from '../../../../service/contracts/transactions';
import { BodyView } from '../../components/BodyView';

/**
 * Names and their values in two columns of fixed share, long values wrapping. `code` shows them as code (headers);
 * otherwise as plain text (properties).
 */
export function NameValueTable({ entries, label, code = false }: { entries: [string, string][]; label: string; code?: boolean }) {
  return (
    <Table.ScrollContainer minWidth={400} type="native">
      <Table withTableBorder verticalSpacing={code ? 4 : undefined} aria-label={label} style={{ tableLayout: 'fixed' }}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th w="30%">Name</Table.Th>
            <Table.Th>Value</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {entries.map(([name, value]) => (
            <Table.Tr key={name}>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>{code ? <Code>{name}</Code> : name}</Table.Td>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>
                {code ? (
                  <Text size="sm" ff="monospace">
                    {value}
                  </Text>
                ) : (
                  value
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function HeadersTable({ headers, label }: { headers: Record<string, string> | undefined; label: string }) {
  const entries = Object.entries(headers ?? {});
  if (entries.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        No headers stored.
      </Text>
    );
  }
  return <NameValueTable entries={entries} label={label} code />;
}

/** A request or response: headers then body; `label` names them ("Request" gives "Request headers", "Request body"). */
export function PartView({ part, label, sameAsRequest = false }: { part: TransactionRequestView | TransactionResponseView; label: string; sameAsRequest?: boolean }) {
  const notStored = 'bodyNotStored' in part && part.bodyNotStored === true;
  const noBody = part.body === undefined && part.bodyRemoved !== true && !notStored;
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
        <BodyView label={`${label} body`} body={part.body} bodyTruncated={part.bodyTruncated} bodyRemoved={part.bodyRemoved} bodyNotStored={notStored} headers={part.headers} />
      )}
    </>
  );
}
