/** One transaction: its summary, request, response, routes, orchestrations and properties, its re-runs, and a re-run. */
import { useEffect, useMemo, useState } from 'react';
import type { ReactNode } from 'react';
import { Accordion, Alert, Anchor, Badge, Group, Loader, Paper, SimpleGrid, Stack, Tabs, Text } from '@mantine/core';
import { Link, useParams, useSearchParams } from 'react-router';
import { SearchHighlightContext, SearchWordsContext, highlightFromParams, wordsFromParams } from '../../components/search-highlight';
import type { LiveTransaction } from '../../../../service/contracts/live-feed';
import type { CreatedTask, ExchangeView, TransactionView } from '../../../../service/contracts/transactions';
import { live } from '../../api/live';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { isAdmin, useSession } from '../../stores/session';
import { useTransactions } from '../../stores/transactions';
import { NameValueTable, PartView } from './ExchangeView';
import { RerunLinks } from './RerunLinks';
import { RerunButton, RerunOutcome } from './SingleRerun';
import { formatTime } from '../../data/status';
import { StatusBadge } from '../../components/StatusBadge';
import { hl7MessageType, socketRouteLabel, socketTransport } from '../../data/transport';
import { receiverRefusal, refusalSentence } from './refusal';
import type { TransportRoute } from '../../data/transport';

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div style={{ minWidth: 0 }}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <div style={{ overflowWrap: 'anywhere' }}>{children}</div>
    </div>
  );
}

function duration(tx: TransactionView): string {
  if (tx.response === undefined) return '–';
  const ms = new Date(tx.response.timestamp).getTime() - new Date(tx.request.timestamp).getTime();
  return Number.isFinite(ms) ? `${ms.toLocaleString()} ms` : '–';
}

/**
 * Routes or orchestrations, one accordion item each with its request and response. An mllp or tcp route (its type
 * read from the channel's route of that name) is shown as its type and host:port: its stored POST / is a placeholder.
 */
function Exchanges({ items, kind, routeTypes = [] }: { items: ExchangeView[]; kind: 'Route' | 'Orchestration'; routeTypes?: TransportRoute[] }) {
  if (items.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {kind === 'Route' ? 'No routes were recorded.' : 'No orchestrations: the channel did not go through a mediator that reported any.'}
      </Text>
    );
  }
  return (
    <Accordion variant="separated" multiple defaultValue={items.length === 1 ? ['0'] : []}>
      {items.map((item, i) => {
        const socket = kind === 'Route' ? socketRouteLabel(routeTypes.find((r) => r.name === item.name), item.request) : null;
        const line =
          socket ?? `${item.request.method} ${item.request.path}${item.request.querystring === '' ? '' : `?${item.request.querystring}`}`;
        return (
          <Accordion.Item key={i} value={String(i)}>
            <Accordion.Control>
              <Group gap="sm" wrap="nowrap">
                <Text fw={600} size="sm" truncate>
                  {kind} {item.name}
                </Text>
                <Text size="sm" c="dimmed" truncate>
                  {socket ?? `${item.request.method} ${item.request.path}`}
                </Text>
                {item.response !== undefined && (
                  <Badge variant="light" color={item.response.status >= 500 ? 'red' : item.response.status >= 300 ? 'yellow' : 'teal'}>
                    {item.response.status}
                  </Badge>
                )}
                {item.error !== undefined && (
                  <Badge variant="light" color="red">
                    Error
                  </Badge>
                )}
              </Group>
            </Accordion.Control>
            <Accordion.Panel>
              {item.error !== undefined && (
                <Alert color="red" title="Error" mb="sm">
                  {item.error.message}
                </Alert>
              )}
              <Text fw={600} size="sm">
                Request: {line} at {formatTime(item.request.timestamp)}
              </Text>
              <PartView part={item.request} label={`${kind} ${item.name} request`} sameAsRequest={kind === 'Route'} />
              <Text fw={600} size="sm" mt="lg">
                Response
              </Text>
              {item.response === undefined ? (
                <Text size="sm" c="dimmed">
                  No response.
                </Text>
              ) : (
                <>
                  <Text size="sm">
                    Status {item.response.status} at {formatTime(item.response.timestamp)}
                  </Text>
                  <PartView part={item.response} label={`${kind} ${item.name} response`} />
                </>
              )}
            </Accordion.Panel>
          </Accordion.Item>
        );
      })}
    </Accordion>
  );
}

export function TransactionDetailPage() {
  const { id = '' } = useParams();
  const [params] = useSearchParams();
  // The key the list found this transaction by, highlighted in its bodies.
  const highlight = useMemo(() => highlightFromParams(params), [params]);
  // The words of the text search it was found by, marked in its bodies too.
  const words = useMemo(() => wordsFromParams(params), [params]);
  const tx = useTransactions((s) => (s.detail?._id === id ? s.detail : null));
  const loading = useTransactions((s) => s.detailLoading);
  const error = useTransactions((s) => s.detailError);
  const loadDetail = useTransactions((s) => s.loadDetail);
  const channels = useTransactions((s) => s.channels);
  const clients = useTransactions((s) => s.clients);
  const loadNames = useTransactions((s) => s.loadNames);
  const rerun = useTransactions((s) => s.rerun);
  const listSearch = useTransactions((s) => s.listSearch);
  const admin = isAdmin(useSession((s) => s.user));

  const [task, setTask] = useState<CreatedTask | null>(null);

  useEffect(() => {
    setTask(null);
    void loadDetail(id);
  }, [id, loadDetail]);

  useEffect(() => {
    if (channels.length === 0) void loadNames(admin);
  }, [channels.length, loadNames, admin]);

  // A transaction still in progress is shown again when it completes; a reconnect may have missed that.
  useEffect(() => {
    const offCompleted = live.on('transaction.completed', (event: LiveTransaction) => {
      if (event.transactionId === id) void loadDetail(id);
    });
    const offReconnect = live.onReconnect(() => void loadDetail(id));
    return () => {
      offCompleted();
      offReconnect();
    };
  }, [id, loadDetail]);

  const back = (
    <Anchor component={Link} to={listSearch === '' ? '/transactions' : `/transactions?${listSearch}`} size="sm">
      Back to transactions
    </Anchor>
  );

  if (tx === null) {
    return (
      <>
        <PageHeader title="Transaction">{back}</PageHeader>
        {loading && <Loader aria-label="Loading the transaction" />}
        <ErrorAlert error={error} action="load the transaction" />
      </>
    );
  }

  const channel = channels.find((c) => c._id === tx.channelID);
  const client = tx.clientID === undefined ? undefined : clients.find((c) => c._id === tx.clientID);
  // Names as the answer gives them (non-admins too may read the names on transactions they see), else the lists'.
  const channelName = tx.channelName ?? channel?.name;
  const clientName = tx.clientName ?? (client === undefined ? undefined : client.name === '' ? client.clientID : client.name);
  // An HL7 AE/AR/CE/CR answer reads as a 400 or 500: the summary names it as the receiver's refusal instead.
  const refusal = receiverRefusal(tx);
  const primaryRoute = channel?.routes?.find((r) => r.primary)?.name;
  const query = tx.request.querystring === '' ? '' : `?${tx.request.querystring}`;
  const routes = tx.routes ?? [];
  const orchestrations = tx.orchestrations ?? [];
  const properties = Object.entries(tx.properties ?? {});
  const notRerunnable = !tx.canRerun || tx.status === 'Processing';
  // A tcp or tls channel's transaction has no real method or path (POST / is a placeholder): its transport instead.
  const transport = socketTransport(channel);
  const messageType = transport === null ? undefined : hl7MessageType(tx.request.body);
  const listenerAddress = tx.request.host === undefined ? '' : `${tx.request.host}${tx.request.port === undefined ? '' : `:${tx.request.port}`}`;

  return (
    <SearchHighlightContext.Provider value={highlight}>
      <SearchWordsContext.Provider value={words}>
        <PageHeader title="Transaction">
          {back}
          <RerunButton
            subject={{ tx, channelName: channel?.name ?? tx.channelID, line: transport === null ? `${tx.request.method} ${tx.request.path}${query}` : `${transport}${messageType === undefined ? '' : ` · ${messageType}`}` }}
            disabled={notRerunnable}
            rerun={() => rerun([id])}
            onStarted={setTask}
          />
        </PageHeader>
        <Stack gap="sm">
          <ErrorAlert error={error} action="refresh the transaction" />
          {task !== null && <RerunOutcome key={task._id} task={task} onClose={() => setTask(null)} onFinished={() => void loadDetail(id)} />}
          {!tx.canRerun && (
            <Text size="sm" c="dimmed">
              This transaction cannot be re-run: a body needed to send it again was not stored in full.
            </Text>
          )}
          {tx.status === 'Processing' && (
            <Text size="sm" c="dimmed">
              This transaction is still being processed; it can be re-run once it has completed.
            </Text>
          )}
          {tx.error !== undefined && (
            <Alert color="red" title="Error">
              {tx.error.message}
            </Alert>
          )}
          {refusal !== null && (
            <Alert color={refusal.code === 'AE' || refusal.code === 'CE' ? 'yellow' : 'red'} title="Refused by the receiving system">
              {refusalSentence(refusal, primaryRoute)}
            </Alert>
          )}
          {tx.error === undefined && refusal === null && tx.reason !== undefined && (
            <Alert color={tx.status === 'Failed' ? 'red' : 'yellow'} title="Why it did not succeed">
              {tx.reason}
            </Alert>
          )}

          <Paper withBorder p="md">
            <Group gap="sm" mb="sm" wrap="nowrap">
              <StatusBadge status={tx.status} />
              {refusal !== null && (
                <Badge color="red" variant="outline" radius="sm" style={{ textTransform: 'none', flexShrink: 0 }}>
                  Refused: {refusal.code}
                </Badge>
              )}
              {transport === null ? (
                <Text fw={600} ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                  {tx.request.method} {tx.request.path}
                  {query}
                </Text>
              ) : (
                <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                  {transport}
                  {messageType === undefined ? '' : ` · ${messageType}`}
                </Text>
              )}
            </Group>
            <SimpleGrid cols={{ base: 2, md: 4 }} spacing="md" verticalSpacing="sm">
              <Field label="Received">{formatTime(tx.request.timestamp)}</Field>
              <Field label="Duration">{duration(tx)}</Field>
              <Field label="Response status">
                {refusal === null ? (tx.response?.status ?? '–') : `${refusal.code} (${refusal.meaning}), recorded as ${tx.response?.status ?? '–'}`}
              </Field>
              <Field label="Channel">{channelName ?? tx.channelID}</Field>
              <Field label="Client">
                {tx.clientID === undefined ? (
                  'None (public channel)'
                ) : (
                  <>
                    {clientName ?? tx.clientID}
                    {clientName !== undefined && (
                      <Text span size="xs" c="dimmed" ff="monospace">
                        {' '}
                        ({tx.clientID})
                      </Text>
                    )}
                  </>
                )}
              </Field>
              <Field label="Client address">{tx.clientIP}</Field>
              <Field label="Transaction ID">
                <Text size="sm" ff="monospace">
                  {tx._id}
                </Text>
              </Field>
              <Field label="Re-runs">
                <RerunLinks tx={tx} />
              </Field>
            </SimpleGrid>
          </Paper>

          <Tabs defaultValue="request" keepMounted={false}>
            <Tabs.List>
              <Tabs.Tab value="request">Request</Tabs.Tab>
              <Tabs.Tab value="response">Response</Tabs.Tab>
              <Tabs.Tab value="routes">Routes ({routes.length})</Tabs.Tab>
              <Tabs.Tab value="orchestrations">Orchestrations ({orchestrations.length})</Tabs.Tab>
              <Tabs.Tab value="properties">Properties ({properties.length})</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="request" pt="sm">
              {transport === null ? (
                <Text size="sm">
                  {tx.request.method} {tx.request.path}
                  {query}
                  {listenerAddress === '' ? '' : ` on ${listenerAddress}`} at {formatTime(tx.request.timestamp)}
                </Text>
              ) : (
                <Text size="sm">
                  Received by {transport}
                  {listenerAddress === '' ? '' : ` on ${listenerAddress}`} from {tx.clientIP} at {formatTime(tx.request.timestamp)}
                </Text>
              )}
              <PartView part={tx.request} label="Request" />
            </Tabs.Panel>
            <Tabs.Panel value="response" pt="sm">
              {tx.response === undefined ? (
                <Text size="sm" c="dimmed">
                  No response yet.
                </Text>
              ) : (
                <>
                  <Text size="sm">
                    Status {tx.response.status} at {formatTime(tx.response.timestamp)}
                  </Text>
                  <PartView part={tx.response} label="Response" />
                </>
              )}
            </Tabs.Panel>
            <Tabs.Panel value="routes" pt="sm">
              <Exchanges items={routes} kind="Route" routeTypes={channel?.routes} />
            </Tabs.Panel>
            <Tabs.Panel value="orchestrations" pt="sm">
              <Exchanges items={orchestrations} kind="Orchestration" />
            </Tabs.Panel>
            <Tabs.Panel value="properties" pt="sm">
              {properties.length === 0 ? (
                <Text size="sm" c="dimmed">
                  No properties.
                </Text>
              ) : (
                <NameValueTable entries={properties} label="Properties" />
              )}
            </Tabs.Panel>
          </Tabs>
        </Stack>
      </SearchWordsContext.Provider>
    </SearchHighlightContext.Provider>
  );
}
