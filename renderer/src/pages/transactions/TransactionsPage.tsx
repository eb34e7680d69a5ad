/**
 * The transactions list: filters and page in the URL, one server page at a time (the log holds 100k+), selection for
 * re-runs, re-run of everything matching, and export. The unfiltered first page follows the live feed (live-list.ts).
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { Button, Group, Loader, Pagination, Paper, Stack, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useSearchParams } from 'react-router';
import type { CreatedTask } from '../../../../service/contracts/transactions';
import { live } from '../../api/live';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageSizeSelect } from '../../components/PageSizeSelect';
import { PageHeader } from '../../components/PageHeader';
import { isAdmin, useSession } from '../../stores/session';
import { useTransactions } from '../../stores/transactions';
import { ExportModal } from './ExportModal';
import { FiltersPanel } from './FiltersPanel';
import { PAGE_SIZES, apiFilters, dateOrderProblem, hasFilters, paramsFromQuery, queryFromParams } from '../../data/transaction-filters';
import type { ListFilters, ListQuery } from '../../data/transaction-filters';
import { HOLD_TEXT, liveHold } from '../../data/live-list';
import { RerunResult } from './RerunResult';
import { BulkRerunDialog } from './BulkRerunDialog';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { selectedRerunSummary } from './selected-rerun';
import { NARROW_LIST, TransactionTable } from './TransactionTable';
import { SearchBox } from './SearchBox';
import { SearchIndexProgress } from './SearchIndexProgress';

export function TransactionsPage() {
  const [params, setParams] = useSearchParams();
  const query = useMemo(() => queryFromParams(params), [params]);
  const filters = useMemo(() => apiFilters(query.filters), [query.filters]);
  const filtersKey = JSON.stringify(filters);
  const dateProblem = dateOrderProblem(query.filters);
  const admin = isAdmin(useSession((s) => s.user));
  const narrow = useMediaQuery(NARROW_LIST) ?? false;

  const channels = useTransactions((s) => s.channels);
  const clients = useTransactions((s) => s.clients);
  const namesError = useTransactions((s) => s.namesError);
  const rows = useTransactions((s) => s.rows);
  const loading = useTransactions((s) => s.loading);
  const listError = useTransactions((s) => s.listError);
  const counted = useTransactions((s) => s.total);
  const estimated = useTransactions((s) => s.estimated);
  const recount = useTransactions((s) => s.recount);
  const selected = useTransactions((s) => s.selected);
  const setSelected = useTransactions((s) => s.setSelected);
  const loadNames = useTransactions((s) => s.loadNames);
  const loadPage = useTransactions((s) => s.loadPage);
  const rerun = useTransactions((s) => s.rerun);
  const rerunFiltered = useTransactions((s) => s.rerunFiltered);
  const setListSearch = useTransactions((s) => s.setListSearch);
  const livePaused = useTransactions((s) => s.livePaused);
  const setLivePaused = useTransactions((s) => s.setLivePaused);

  const [arrived, setArrived] = useState(0);
  const [task, setTask] = useState<CreatedTask | null>(null);
  const [actionError, setActionError] = useState<{ error: unknown; action: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirmBulk, setConfirmBulk] = useState(false);
  const [confirmSelected, setConfirmSelected] = useState(false);
  const [exportOpen, setExportOpen] = useState(false);

  const page = query.page - 1;
  const refresh = () => {
    setArrived(0);
    if (dateProblem === null) void loadPage(filters, page, query.size);
  };

  useEffect(() => {
    void loadNames(admin);
  }, [loadNames, admin]);

  useEffect(() => {
    setListSearch(params.toString());
  }, [params, setListSearch]);

  useEffect(() => {
    setArrived(0);
    if (dateProblem === null) void loadPage(JSON.parse(filtersKey) as typeof filters, page, query.size);
  }, [filtersKey, page, query.size, dateProblem, loadPage]);

  const selectedCount = Object.values(selected).filter(Boolean).length;
  const hold = dateProblem === null ? liveHold(query, selectedCount, livePaused) : 'filtered';
  const holdRef = useRef(hold);
  holdRef.current = hold;
  const size = query.size;

  // Live: new transactions go on top and completions change their row. Held: they are counted and announced, since
  // rows jumping under the pointer make selection unreliable and a pushed event cannot be matched against filters.
  // The page is read again 1.5 s after an event (at most that often while they stream in), for what events do not
  // carry: the client, the exact time, and anything missed while a page load was under way.
  useEffect(() => {
    const store = useTransactions.getState();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const reloadSoon = () => {
      timer ??= setTimeout(() => {
        timer = null;
        if (holdRef.current === null) void store.reloadLive(size);
      }, 1500);
    };
    const offs = [
      live.on('transaction.started', (event) => {
        if (holdRef.current !== null) {
          setArrived((n) => n + 1);
          return;
        }
        store.liveStarted(event, size);
        reloadSoon();
      }),
      live.on('transaction.completed', (event) => {
        if (holdRef.current !== null) return;
        store.liveCompleted(event, size);
        reloadSoon();
      }),
    ];
    return () => {
      for (const off of offs) off();
      if (timer !== null) clearTimeout(timer);
    };
  }, [size]);

  // Going live again (resumed, selection cleared) catches up at once with what arrived or completed meanwhile. A
  // change of filters or page loads its own page; reloadLive leaves that load alone.
  const wasHeld = useRef(hold !== null);
  const reloadLive = useTransactions((s) => s.reloadLive);
  useEffect(() => {
    const held = hold !== null;
    if (wasHeld.current && !held) {
      setArrived(0);
      void reloadLive(size);
    }
    wasHeld.current = held;
  }, [hold, size, reloadLive]);
  useEffect(
    () => live.onReconnect(() => void loadPage(JSON.parse(filtersKey) as typeof filters, page, query.size)),
    [filtersKey, page, query.size, loadPage],
  );

  const setQuery = (next: ListQuery) => setParams(paramsFromQuery(next));
  const changeFilters = (next: ListFilters) => setQuery({ filters: next, page: 1, size: query.size });

  const selectedIds = Object.keys(selected).filter((id) => selected[id] === true);
  const first = page * query.size + 1;
  const last = page * query.size + rows.length;
  // The rows on screen are matches too: a count read a moment before them never says fewer (rows pushed live).
  const total = counted === null ? null : Math.max(counted, rows.length === 0 ? 0 : last);
  const pages = total === null ? null : Math.max(1, Math.ceil(total / query.size));

  async function run(action: string, call: () => Promise<CreatedTask>, after?: () => void) {
    setBusy(true);
    setActionError(null);
    setTask(null);
    try {
      setTask(await call());
      after?.();
      refresh();
    } catch (err) {
      setActionError({ error: err, action });
    } finally {
      setBusy(false);
    }
  }

  // On a phone the page's actions go under its title, which they would otherwise push off the screen.
  const actions = (
    <>
      <Button variant="default" onClick={() => refresh()} loading={loading} loaderProps={{ type: 'dots' }}>
        Refresh
      </Button>
      <Button
        variant="default"
        onClick={() => {
          // The dialog says how many will be exported: counted now, for the filters on screen.
          recount(filters);
          setExportOpen(true);
        }}
        disabled={dateProblem !== null}
      >
        Export
      </Button>
      <Button variant="light" onClick={() => setConfirmBulk(true)} disabled={total === null || total === 0 || dateProblem !== null}>
        Re-run all matching
      </Button>
    </>
  );

  return (
    <>
      {narrow ? (
        <>
          <PageHeader title="Transactions" />
          <Group gap="xs" mb="md">
            {actions}
          </Group>
        </>
      ) : (
        <PageHeader title="Transactions">{actions}</PageHeader>
      )}

      <Stack gap="sm" mb="md">
        {admin && <SearchIndexProgress />}
        <SearchBox filters={query.filters} total={total} onSearch={(search) => changeFilters({ ...query.filters, ...search })} />
      </Stack>

      <FiltersPanel filters={query.filters} channels={channels} clients={clients} showClients={admin} onChange={changeFilters} />

      <Stack gap="sm">
        <ErrorAlert error={namesError} action="load the channel and client names" />
        <ErrorAlert error={listError} action="load the transactions" />
        {actionError !== null && <ErrorAlert error={actionError.error} action={actionError.action} onClose={() => setActionError(null)} />}
        {task !== null && <RerunResult task={task} onClose={() => setTask(null)} />}

        <Group justify="space-between" gap="xs" mih={36}>
          <Group gap="xs">
            <Text size="sm" c="dimmed" aria-live="polite">
              {total === null
                ? 'Counting…'
                : total === 0
                  ? 'No transactions'
                  : `${first.toLocaleString()}–${last.toLocaleString()} of ${estimated ? 'more than ' : ''}${total.toLocaleString()} transaction${total === 1 ? '' : 's'}`}
            </Text>
            {loading && <Loader size="xs" aria-label="Loading transactions" />}
            {arrived > 0 && hold !== null && (
              <Button size="compact-sm" variant="subtle" onClick={() => refresh()}>
                {arrived === 1 ? '1 new transaction' : `${arrived} new transactions`}: show
              </Button>
            )}
            <Text size="sm" c="dimmed" aria-label={hold === null ? 'Live updates on' : HOLD_TEXT[hold]}>
              · {hold === null ? 'Live' : HOLD_TEXT[hold]}
            </Text>
            <Button size="compact-sm" variant="default" aria-pressed={livePaused} onClick={() => setLivePaused(!livePaused)}>
              {livePaused ? 'Resume live updates' : 'Pause live updates'}
            </Button>
          </Group>
          <Group gap="xs">
            <Text size="sm">{selectedIds.length} selected</Text>
            <Button size="sm" onClick={() => setConfirmSelected(true)} disabled={selectedIds.length === 0} loading={busy}>
              Re-run selected
            </Button>
            {selectedIds.length > 0 && (
              <Button size="sm" variant="subtle" onClick={() => setSelected({})}>
                Clear selection
              </Button>
            )}
          </Group>
        </Group>

        {dateProblem !== null ? (
          <Paper withBorder p="lg">
            <Text>{dateProblem}</Text>
          </Paper>
        ) : rows.length === 0 && !loading && listError === null ? (
          <Paper withBorder p="lg">
            {query.page > 1 && total !== null && total > 0 ? (
              <Group gap="sm">
                <Text c="dimmed">This page is past the last one.</Text>
                <Button variant="default" size="xs" onClick={() => setQuery({ ...query, page: 1 })}>
                  Go to the first page
                </Button>
              </Group>
            ) : (
              <Text c="dimmed">{hasFilters(query.filters) ? 'No transactions match these filters.' : 'No transactions yet. They appear here as clients send requests.'}</Text>
            )}
          </Paper>
        ) : (
          <TransactionTable rows={rows} channels={channels} clients={clients} selected={selected} onSelectedChange={setSelected} searchText={query.filters.text} />
        )}

        <Group justify="space-between">
          <PageSizeSelect sizes={PAGE_SIZES} value={query.size} onChange={(size) => setQuery({ filters: query.filters, page: 1, size })} />
          {pages !== null && pages > 1 && (
            <Pagination
              total={pages}
              value={Math.min(query.page, pages)}
              onChange={(p) => setQuery({ ...query, page: p })}
              siblings={1}
              boundaries={1}
              aria-label="Pages"
              getItemProps={(p) => ({ 'aria-label': `Page ${p}` })}
              getControlProps={(control) => ({ 'aria-label': control === 'next' ? 'Next page' : control === 'previous' ? 'Previous page' : control === 'first' ? 'First page' : 'Last page' })}
            />
          )}
        </Group>
      </Stack>

      <ExportModal opened={exportOpen} onClose={() => setExportOpen(false)} filters={filters} total={total} />

      <ConfirmDialog
        opened={confirmSelected}
        title="Re-run the selected transactions?"
        confirmLabel="Re-run now"
        action="re-run the selected transactions"
        onClose={() => setConfirmSelected(false)}
        onConfirm={() => {
          setConfirmSelected(false);
          void run('re-run the selected transactions', () => rerun(selectedIds), () => setSelected({}));
          return Promise.resolve();
        }}
      >
        <Text>{selectedRerunSummary(selectedIds, rows)}</Text>
      </ConfirmDialog>

      <BulkRerunDialog
        opened={confirmBulk}
        filters={filters}
        filtered={hasFilters(query.filters)}
        busy={busy}
        onClose={() => setConfirmBulk(false)}
        onStart={(latestAttemptOnly) => {
          setConfirmBulk(false);
          void run('re-run the matching transactions', () => rerunFiltered(filters, latestAttemptOnly));
        }}
      />
    </>
  );
}
