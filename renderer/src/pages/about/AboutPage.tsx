/** About: versions, the ports Junction listens on, the data store's engine and health, the instances sharing it, and who is signed in. */
import { useEffect } from 'react';
import type { ReactNode } from 'react';
import { Badge, Button, Code, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import type { AboutInstance, AboutStorage, ServicePort } from '../../../../service/contracts/api';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { FieldList } from '../../components/FieldList';
import type { FieldRow } from '../../components/FieldList';
import { Section, sectionId } from '../../components/Section';
import { useAbout } from '../../stores/about';
import { isAdmin, useSession } from '../../stores/session';

function Facts({ title, rows, children }: { title: string; rows: FieldRow[]; children?: ReactNode }) {
  const id = sectionId(title, 'about');
  return (
    <Section title={title} id={id}>
      {children}
      {rows.length === 0 ? null : <FieldList rows={rows} labelWidth="45%" aria-labelledby={id} />}
    </Section>
  );
}

const PORT_NAMES: Record<ServicePort['purpose'], string> = { api: 'Management API and console', transactions: 'Transactions', audit: 'Audit messages (ATNA)' };

/** The port this page was loaded from: the management API's, unless a proxy stands in front. */
function pagePort(): { protocol: string; port: number } {
  const protocol = window.location.protocol.replace(':', '');
  const port = window.location.port === '' ? (protocol === 'https' ? 443 : 80) : Number(window.location.port);
  return { protocol, port };
}

const ENGINE_NAMES: Record<AboutStorage['engine'], string> = { embedded: 'Embedded (one instance)', postgres: 'PostgreSQL (shared)' };

/** The live instances as a table, the one that answered marked, so an admin sees which machine served the page. */
function InstanceTable({ instances }: { instances: AboutInstance[] }) {
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table aria-labelledby={sectionId('Instances', 'about')}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Management API</Table.Th>
            <Table.Th>Version</Table.Th>
            <Table.Th>Started</Table.Th>
            <Table.Th>Last heartbeat</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {instances.map((i) => (
            <Table.Tr key={i.id}>
              <Table.Td>
                {i.name}{' '}
                {i.self ? (
                  <Badge color="teal" variant="light">
                    this one
                  </Badge>
                ) : null}
              </Table.Td>
              <Table.Td style={{ wordBreak: 'break-all' }}>{i.apiUrl}</Table.Td>
              <Table.Td>{i.version}</Table.Td>
              <Table.Td>{new Date(i.started).toLocaleString()}</Table.Td>
              <Table.Td>{new Date(i.lastBeat).toLocaleString()}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function formatDuration(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) return `${days} ${days === 1 ? 'day' : 'days'} ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes} min`;
  return minutes > 0 ? `${minutes} min ${seconds % 60} s` : `${seconds % 60} s`;
}

export function AboutPage() {
  const { about, health, loading, error, healthError, load } = useAbout();
  const user = useSession((s) => s.user);
  useEffect(() => void load(), [load]);
  const page = pagePort();

  const versions: FieldRow[] =
    about === null
      ? []
      : [
          ['Product', about.product],
          ['Version', about.version],
          ['Core version (OpenHIM compatible)', about.currentCoreVersion],
          ['Node.js version', about.nodeVersion],
          ['Server time zone', about.serverTimezone],
          ...(about.certificate === undefined
            ? []
            : ([
                ['Server certificate valid until', new Date(about.certificate.validTo).toLocaleString()],
                ['Server certificate SHA-256', <Code key="fp" style={{ wordBreak: 'break-all' }}>{about.certificate.fingerprint256}</Code>],
              ] as FieldRow[])),
        ];

  const ports: FieldRow[] = [[`${PORT_NAMES.api} (this page)`, `${page.port} (${page.protocol.toUpperCase()})`]];
  for (const p of about?.ports ?? []) {
    if (p.purpose === 'api') continue;
    ports.push([`${PORT_NAMES[p.purpose]} over ${p.protocol.toUpperCase()}`, String(p.port)]);
  }

  const store: FieldRow[] =
    health === null
      ? []
      : [
          ['Storage engine', about === null ? health.store.engine : `${ENGINE_NAMES[about.storage.engine]}: ${health.store.engine}`],
          [
            'State',
            <Badge key="state" color={health.status === 'ok' ? 'teal' : 'red'} variant="light">
              {health.status === 'ok' ? `Healthy (${health.store.state})` : `Unavailable (${health.store.state})`}
            </Badge>,
          ],
          ['Problems found', String(health.store.problems)],
          ['Service running for', formatDuration(health.uptimeSeconds)],
        ];

  const account: FieldRow[] =
    user === null
      ? []
      : [
          ['Email', user.email],
          ['Name', `${user.firstname} ${user.surname}`.trim() || '–'],
          ['Groups', user.groups.length === 0 ? 'none' : user.groups.join(', ')],
          ['Role', isAdmin(user) ? 'Administrator' : 'User'],
        ];

  return (
    <Stack>
      <PageHeader title="About">
        <Button variant="default" onClick={() => void load()} loading={loading}>
          Refresh
        </Button>
      </PageHeader>
      <ErrorAlert error={error} action="read the versions" />
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Facts title="Versions" rows={versions} />
        <Facts title="Ports" rows={ports}>
          {about !== null && about.ports === undefined ? (
            <Text size="sm" c="dimmed" mb="xs">
              Only administrators can see the transaction ports.
            </Text>
          ) : null}
        </Facts>
        <Facts title="Data store" rows={store}>
          <ErrorAlert error={healthError} action="check the data store" />
        </Facts>
        <Facts title="Signed in as" rows={account}>
          {user === null ? <Code>–</Code> : null}
        </Facts>
      </SimpleGrid>
      {about === null ? null : (
        <Facts title="Instances" rows={[]}>
          {about.storage.instances === undefined ? (
            <Text size="sm" c="dimmed">
              Only administrators can see the instances.
            </Text>
          ) : (
            <InstanceTable instances={about.storage.instances} />
          )}
        </Facts>
      )}
    </Stack>
  );
}
