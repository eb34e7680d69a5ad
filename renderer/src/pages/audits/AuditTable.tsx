/**
 * One server page of audits as a table. Each row's time links to its detail. A message that did not parse as an
 * audit (kept raw) says so in place of its event.
 */
import { memo } from 'react';
import type { CSSProperties } from 'react';
import { Anchor, Badge, Table } from '@mantine/core';
import { Link } from 'react-router';
import type { Audit } from '../../../../service/contracts/audits';
import { formatShortTime, formatTime } from '../../data/status';
import { codeText, isMalformed, mainObject, outcomeText, requestor } from './audit-view';
import { ACTIONS, OUTCOMES } from './filters';

const nowrap: CSSProperties = { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', display: 'block', fontSize: 'var(--mantine-font-size-sm)' };
// Codes and IDs wrap rather than being cut: a CX patient ID or a long event name is what people look for.
const plain: CSSProperties = { display: 'block', overflowWrap: 'anywhere', fontSize: 'var(--mantine-font-size-sm)' };
const dimmed: CSSProperties = { ...plain, color: 'var(--mantine-color-dimmed)' };

function Cell({ text }: { text: string | undefined }) {
  const value = text === undefined || text === '' ? '–' : text;
  return (
    <span style={value === '–' ? dimmed : plain}>
      {value}
    </span>
  );
}

const OUTCOME_COLOR: Record<string, string> = { '0': 'teal', '4': 'yellow', '8': 'orange', '12': 'red' };

const AuditRow = memo(function AuditRow({ audit }: { audit: Audit }) {
  const event = audit.eventIdentification;
  const time = formatTime(event.eventDateTime);
  const link = (
    <Anchor component={Link} to={`/audits/${audit._id}`} size="sm" title={time} display="block" style={nowrap}>
      {formatShortTime(event.eventDateTime)}
    </Anchor>
  );
  if (isMalformed(audit)) {
    return (
      <Table.Tr>
        <Table.Td>{link}</Table.Td>
        <Table.Td colSpan={6}>
          <Badge color="gray" variant="light" radius="sm" style={{ textTransform: 'none' }}>
            Not a readable audit message: kept as received
          </Badge>
        </Table.Td>
        <Table.Td title="The sending host, from the syslog header">
          <Cell text={audit.syslog?.host} />
        </Table.Td>
      </Table.Tr>
    );
  }
  const outcome = event.eventOutcomeIndicator;
  return (
    <Table.Tr>
      <Table.Td>{link}</Table.Td>
      <Table.Td>
        <Cell text={codeText(event.eventID)} />
      </Table.Td>
      <Table.Td>
        <Cell text={codeText(event.eventTypeCode)} />
      </Table.Td>
      <Table.Td>
        {outcome === undefined || outcome === '' ? (
          <Cell text={undefined} />
        ) : (
          <Badge color={OUTCOME_COLOR[outcome] ?? 'gray'} variant="light" radius="sm" style={{ textTransform: 'none' }} title={outcomeText(outcome)}>
            {OUTCOMES[outcome] ?? outcome}
          </Badge>
        )}
      </Table.Td>
      <Table.Td>
        <Cell text={event.eventActionCode === undefined ? undefined : (ACTIONS[event.eventActionCode] ?? event.eventActionCode)} />
      </Table.Td>
      <Table.Td>
        <Cell text={requestor(audit.activeParticipant)?.userID} />
      </Table.Td>
      <Table.Td>
        <Cell text={mainObject(audit.participantObjectIdentification)?.participantObjectID} />
      </Table.Td>
      <Table.Td>
        <Cell text={audit.auditSourceIdentification?.auditSourceID} />
      </Table.Td>
    </Table.Tr>
  );
});

// Widths leave the event column the rest of the table's 1000 px at least.
const HEADERS: [string, number | undefined][] = [
  ['Event time', 185],
  ['Event', undefined],
  ['Type', 120],
  ['Outcome', 145],
  ['Action', 85],
  ['User', 110],
  ['Patient / object ID', 155],
  ['Source', 95],
];

function AuditTableView({ rows }: { rows: Audit[] }) {
  return (
    <Table.ScrollContainer minWidth={1000} type="native">
      <Table striped highlightOnHover verticalSpacing={6} style={{ tableLayout: 'fixed' }} aria-label="Audits">
        <Table.Thead>
          <Table.Tr>
            {HEADERS.map(([name, width]) => (
              <Table.Th key={name} scope="col" style={width === undefined ? undefined : { width }}>
                {name}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((audit) => (
            <AuditRow key={audit._id} audit={audit} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** Redrawn only when its rows change, not on every keystroke in a filter. */
export const AuditTable = memo(AuditTableView);
