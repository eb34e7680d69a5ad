/**
 * One audit: its event, active participants, participant objects and audit source as readable sections, the syslog
 * header, and the raw message with its XML laid out (as text, never as HTML) and a copy button.
 */
import { useEffect, useMemo, useState } from 'react';
import type { ReactNode } from 'react';
import { Alert, Anchor, Button, Code, CopyButton, Group, Loader, Paper, SegmentedControl, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { Link, useParams } from 'react-router';
import type { Audit, AuditActiveParticipant, AuditParticipantObject } from '../../../../service/contracts/audits';
import { prettyXml } from '../../data/body-format';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { adminOnly } from '../../components/AdminOnly';
import { useAudits } from '../../stores/audits';
import { formatTime } from '../../data/status';
import { actionText, codeText, decodeQuery, isMalformed, outcomeText, splitRawMessage } from './audit-view';

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div style={{ minWidth: 0 }}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <div style={{ overflowWrap: 'anywhere', fontSize: 'var(--mantine-font-size-sm)' }}>{children === undefined || children === '' ? '–' : children}</div>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = `audit-section-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <Paper withBorder p="md" component="section" aria-labelledby={id}>
      <Title order={2} size="h4" id={id} mb="sm">
        {title}
      </Title>
      {children}
    </Paper>
  );
}

const NETWORK_TYPES: Record<string, string> = { '1': 'Machine name', '2': 'IP address', '3': 'Telephone number', '4': 'Email address', '5': 'URI' };
const OBJECT_TYPES: Record<string, string> = { '1': 'Person', '2': 'System object', '3': 'Organization', '4': 'Other' };
const OBJECT_ROLES: Record<string, string> = {
  '1': 'Patient',
  '2': 'Location',
  '3': 'Report',
  '4': 'Resource',
  '5': 'Master file',
  '6': 'User',
  '7': 'List',
  '8': 'Doctor',
  '9': 'Subscriber',
  '10': 'Guarantor',
  '11': 'Security user entity',
  '12': 'Security user group',
  '13': 'Security resource',
  '14': 'Security granularity definition',
  '15': 'Provider',
  '16': 'Data destination',
  '17': 'Data repository',
  '18': 'Schedule',
  '19': 'Customer',
  '20': 'Job',
  '21': 'Job stream',
  '22': 'Table',
  '23': 'Routing criteria',
  '24': 'Query',
};

function named(value: string | undefined, names: Record<string, string>): string {
  if (value === undefined || value === '') return '–';
  return Object.hasOwn(names, value) ? `${names[value]} (${value})` : value;
}

function Participants({ participants }: { participants: AuditActiveParticipant[] }) {
  if (participants.length === 0) return <Text size="sm" c="dimmed">No active participants.</Text>;
  return (
    // Narrow windows scroll this table sideways; a keyboard can only scroll what it can focus (WCAG 2.1.1).
    <Table.ScrollContainer minWidth={700} type="native" tabIndex={0} role="region" aria-label="Active participants table">
      <Table aria-label="Active participants" verticalSpacing={4}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">User ID</Table.Th>
            <Table.Th scope="col">Alternative ID</Table.Th>
            <Table.Th scope="col">Name</Table.Th>
            <Table.Th scope="col">Requestor</Table.Th>
            <Table.Th scope="col">Network access point</Table.Th>
            <Table.Th scope="col">Role</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {participants.map((p, i) => (
            <Table.Tr key={i}>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>{p.userID ?? '–'}</Table.Td>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>{p.alternativeUserID ?? '–'}</Table.Td>
              <Table.Td>{p.userName ?? '–'}</Table.Td>
              <Table.Td>{p.userIsRequestor === undefined ? '–' : p.userIsRequestor.toLowerCase() === 'true' ? 'Yes' : 'No'}</Table.Td>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>
                {p.networkAccessPointID ?? '–'}
                {p.networkAccessPointTypeCode === undefined ? '' : ` · ${named(p.networkAccessPointTypeCode, NETWORK_TYPES)}`}
              </Table.Td>
              <Table.Td>{codeText(p.roleIDCode)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function ParticipantObject({ object, index }: { object: AuditParticipantObject; index: number }) {
  const query = decodeQuery(object.participantObjectQuery);
  const details = object.participantObjectDetail ?? [];
  return (
    <Stack gap="xs" mt={index === 0 ? 0 : 'md'}>
      <SimpleGrid cols={{ base: 2, md: 4 }} spacing="md" verticalSpacing="sm">
        <Field label="Object ID">
          <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
            {object.participantObjectID ?? '–'}
          </Text>
        </Field>
        <Field label="Type">{named(object.participantObjectTypeCode, OBJECT_TYPES)}</Field>
        <Field label="Role">{named(object.participantObjectTypeCodeRole, OBJECT_ROLES)}</Field>
        <Field label="ID type">{codeText(object.participantObjectIDTypeCode)}</Field>
        {object.participantObjectName !== undefined && <Field label="Name">{object.participantObjectName}</Field>}
      </SimpleGrid>
      {object.participantObjectQuery !== undefined && (
        <Field label={query === null ? 'Query (base64)' : 'Query'}>
          <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            {query ?? object.participantObjectQuery}
          </Code>
        </Field>
      )}
      {details.length > 0 && (
        <Table aria-label={`Details of object ${index + 1}`} verticalSpacing={2}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Detail type</Table.Th>
              <Table.Th scope="col">Value</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {details.map((d, i) => (
              <Table.Tr key={i}>
                <Table.Td>{d.type}</Table.Td>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{d.value}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

/** The raw message: the syslog header line, then the XML laid out (or as received when it does not parse). */
function RawMessage({ raw }: { raw: string }) {
  const [layout, setLayout] = useState<'formatted' | 'raw'>('formatted');
  const parts = useMemo(() => splitRawMessage(raw), [raw]);
  const pretty = useMemo(() => (parts.body.trimStart().startsWith('<') ? prettyXml(parts.body) : null), [parts.body]);
  const showPretty = pretty !== null && layout === 'formatted';
  return (
    <Stack gap="xs">
      <Group justify="space-between" gap="xs">
        <Text size="xs" c="dimmed">
          {raw.length.toLocaleString()} characters
          {pretty === null ? ' · shown as received: the message holds no well-formed XML' : ''}
        </Text>
        <Group gap="xs">
          {pretty !== null && (
            <SegmentedControl
              size="xs"
              aria-label="Raw message layout"
              value={layout}
              onChange={(v) => setLayout(v === 'raw' ? 'raw' : 'formatted')}
              data={[
                { value: 'formatted', label: 'Formatted' },
                { value: 'raw', label: 'As received' },
              ]}
            />
          )}
          <CopyButton value={raw}>
            {({ copied, copy }) => (
              <Button size="compact-xs" variant="default" onClick={copy} aria-label="Copy the raw message">
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        </Group>
      </Group>
      <Code block data-format={showPretty ? 'xml' : 'text'} style={{ whiteSpace: 'pre', overflow: 'auto', maxHeight: 560 }}>
        {showPretty ? `${parts.header === '' ? '' : `${parts.header}\n`}${pretty}` : raw}
      </Code>
    </Stack>
  );
}

function Syslog({ audit }: { audit: Audit }) {
  const s = audit.syslog;
  if (s === undefined) return <Text size="sm" c="dimmed">No syslog header: this audit was not received as a syslog message.</Text>;
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }} spacing="md" verticalSpacing="sm">
      <Field label="Format">{s.type}</Field>
      <Field label="Time">{s.time === undefined ? undefined : formatTime(s.time)}</Field>
      <Field label="Host">{s.host}</Field>
      <Field label="Application">{s.appName}</Field>
      <Field label="Process ID">{s.pid}</Field>
      <Field label="Message ID">{s.msgID}</Field>
      <Field label="Facility">{s.facility === undefined ? s.facilityID?.toString() : `${s.facility} (${s.facilityID ?? '?'})`}</Field>
      <Field label="Severity">{s.severity === undefined ? s.severityID?.toString() : `${s.severity} (${s.severityID ?? '?'})`}</Field>
    </SimpleGrid>
  );
}

function AuditDetail() {
  const { id = '' } = useParams();
  const audit = useAudits((s) => (s.detail?._id === id ? s.detail : null));
  const loading = useAudits((s) => s.detailLoading);
  const error = useAudits((s) => s.detailError);
  const loadDetail = useAudits((s) => s.loadDetail);
  const listSearch = useAudits((s) => s.listSearch);

  useEffect(() => {
    void loadDetail(id);
  }, [id, loadDetail]);

  const back = (
    <Anchor component={Link} to={listSearch === '' ? '/audits' : `/audits?${listSearch}`} size="sm">
      Back to the audit log
    </Anchor>
  );

  if (audit === null) {
    return (
      <>
        <PageHeader title="Audit">{back}</PageHeader>
        {loading && <Loader aria-label="Loading the audit" />}
        <ErrorAlert error={error} action="load the audit" />
      </>
    );
  }

  const event = audit.eventIdentification;
  const source = audit.auditSourceIdentification;
  const malformed = isMalformed(audit);

  return (
    <>
      <PageHeader title="Audit">{back}</PageHeader>
      <Stack gap="sm">
        <ErrorAlert error={error} action="refresh the audit" />
        {malformed && (
          <Alert color="gray" title="Not a readable audit message">
            This message did not parse as an RFC 3881 or DICOM audit message. It is kept as it was received, below.
          </Alert>
        )}
        <Section title="Event">
          <SimpleGrid cols={{ base: 2, md: 4 }} spacing="md" verticalSpacing="sm">
            <Field label="Event time">{formatTime(event.eventDateTime)}</Field>
            <Field label="Event">{codeText(event.eventID)}</Field>
            <Field label="Type">{codeText(event.eventTypeCode)}</Field>
            <Field label="Outcome">{outcomeText(event.eventOutcomeIndicator)}</Field>
            <Field label="Action">{actionText(event.eventActionCode)}</Field>
            <Field label="Audit ID">
              <Text size="sm" ff="monospace">
                {audit._id}
              </Text>
            </Field>
          </SimpleGrid>
        </Section>
        {!malformed && (
          <>
            <Section title={`Active participants (${audit.activeParticipant.length})`}>
              <Participants participants={audit.activeParticipant} />
            </Section>
            <Section title={`Participant objects (${audit.participantObjectIdentification.length})`}>
              {audit.participantObjectIdentification.length === 0 ? (
                <Text size="sm" c="dimmed">
                  No participant objects.
                </Text>
              ) : (
                audit.participantObjectIdentification.map((o, i) => <ParticipantObject key={i} object={o} index={i} />)
              )}
            </Section>
            <Section title="Audit source">
              <SimpleGrid cols={{ base: 2, md: 4 }} spacing="md" verticalSpacing="sm">
                <Field label="Source ID">{source?.auditSourceID}</Field>
                <Field label="Enterprise site">{source?.auditEnterpriseSiteID}</Field>
                <Field label="Source type">{codeText(source?.auditSourceTypeCode)}</Field>
              </SimpleGrid>
            </Section>
          </>
        )}
        <Section title="Syslog header">
          <Syslog audit={audit} />
        </Section>
        <Section title="Raw message">
          {audit.rawMessage === undefined ? (
            <Text size="sm" c="dimmed">
              No raw message: this audit was posted as JSON.
            </Text>
          ) : (
            <RawMessage raw={audit.rawMessage} />
          )}
        </Section>
      </Stack>
    </>
  );
}

export const AuditDetailPage = adminOnly('Audit', 'Only administrators can read the audit log.', AuditDetail);
