/**
 * The audit log: the ATNA repository's records, newest first, with OpenHIM's console filters kept in the URL, one
 * server page at a time, and an export of everything the filters match.
 */
import { useEffect, useMemo } from 'react';
import { formatExportBytes, useSaveWhenDone } from '../../components/export-download';
import { Anchor, Button, Group, Loader, Paper, Stack, Text } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageSizeSelect } from '../../components/PageSizeSelect';
import { PageHeader } from '../../components/PageHeader';
import { adminOnly } from '../../components/AdminOnly';
import { useAudits } from '../../stores/audits';
import { AuditFiltersPanel } from './AuditFiltersPanel';
import { AuditTable } from './AuditTable';
import { PAGE_SIZES, auditApiFilters, auditDateOrderProblem, auditQueryFromParams, hasAuditFilters, paramsFromAuditQuery } from './filters';
import type { AuditListFilters, AuditListQuery } from './filters';

/** The export button and its progress; the file is saved through a download link once complete. */
function ExportControl({ filtersKey, disabled }: { filtersKey: string; disabled: boolean }) {
  const exporting = useAudits((s) => s.exporting);
  const start = useAudits((s) => s.startExport);
  const cancel = useAudits((s) => s.cancelExport);
  const reset = useAudits((s) => s.resetExport);
  const link = useSaveWhenDone(exporting.status, exporting.url);
  // Leaving the page stops a running export and drops the file.
  useEffect(() => reset, [reset]);

  return exporting.status === 'running' ? (
    <Group gap="xs">
      <Text size="sm" aria-live="polite">
        Exporting… {formatExportBytes(exporting.bytes)}
      </Text>
      <Button variant="light" color="red" onClick={cancel}>
        Cancel export
      </Button>
    </Group>
  ) : (
    <>
      {exporting.status === 'done' && exporting.url !== null && (
        <Anchor href={exporting.url} download={exporting.fileName} ref={link} size="sm" title="Save the file again">
          {exporting.fileName}
        </Anchor>
      )}
      <Button variant="default" onClick={() => void start(JSON.parse(filtersKey) as Record<string, string>)} disabled={disabled}>
        Export
      </Button>
    </>
  );
}

function Audits() {
  const [params, setParams] = useSearchParams();
  const query = useMemo(() => auditQueryFromParams(params), [params]);
  const filtersKey = JSON.stringify(auditApiFilters(query.filters));
  const dateProblem = auditDateOrderProblem(query.filters);

  const rows = useAudits((s) => s.rows);
  const loading = useAudits((s) => s.loading);
  const listError = useAudits((s) => s.listError);
  const mayHaveMore = useAudits((s) => s.mayHaveMore);
  const options = useAudits((s) => s.options);
  const optionsError = useAudits((s) => s.optionsError);
  const exporting = useAudits((s) => s.exporting);
  const loadOptions = useAudits((s) => s.loadOptions);
  const loadPage = useAudits((s) => s.loadPage);
  const setListSearch = useAudits((s) => s.setListSearch);
  const resetExport = useAudits((s) => s.resetExport);

  const page = query.page - 1;

  useEffect(() => {
    void loadOptions();
  }, [loadOptions]);
  useEffect(() => setListSearch(params.toString()), [params, setListSearch]);
  useEffect(() => {
    if (dateProblem === null) void loadPage(JSON.parse(filtersKey) as Record<string, string>, page, query.size, true);
  }, [filtersKey, page, query.size, dateProblem, loadPage]);

  const setQuery = (next: AuditListQuery) => setParams(paramsFromAuditQuery(next));
  const changeFilters = (next: AuditListFilters) => {
    // A finished export was of the old filters: its link would mislead.
    resetExport();
    setQuery({ filters: next, page: 1, size: query.size });
  };
  const refresh = () => {
    void loadOptions();
    if (dateProblem === null) void loadPage(JSON.parse(filtersKey) as Record<string, string>, page, query.size, true);
  };
  const first = page * query.size + 1;
  const last = page * query.size + rows.length;

  return (
    <>
      <PageHeader title="Audit log">
        <Button variant="default" onClick={refresh} loading={loading} loaderProps={{ type: 'dots' }}>
          Refresh
        </Button>
        <ExportControl filtersKey={filtersKey} disabled={dateProblem !== null} />
      </PageHeader>

      <AuditFiltersPanel filters={query.filters} options={options} onChange={changeFilters} />

      <Stack gap="sm">
        <ErrorAlert error={optionsError} action="load the filter lists" />
        <ErrorAlert error={listError} action="load the audits" />
        {exporting.status === 'failed' && <ErrorAlert error={exporting.error} action="export the audits" onClose={resetExport} />}
        {exporting.status === 'done' && (
          <Text size="sm" role="status">
            Export complete: {exporting.fileName} ({formatExportBytes(exporting.bytes)}) was saved to your downloads.
          </Text>
        )}

        <Group gap="xs" mih={28}>
          <Text size="sm" c="dimmed" aria-live="polite">
            {loading && rows.length === 0
              ? 'Loading…'
              : rows.length === 0
                ? 'No audits on this page'
                : `Audits ${first.toLocaleString()}–${last.toLocaleString()}, newest first`}
          </Text>
          {loading && <Loader size="xs" aria-label="Loading audits" />}
        </Group>

        {dateProblem !== null ? (
          <Paper withBorder p="lg">
            <Text>{dateProblem}</Text>
          </Paper>
        ) : rows.length === 0 && !loading && listError === null ? (
          <Paper withBorder p="lg">
            {query.page > 1 ? (
              <Group gap="sm">
                <Text c="dimmed">There are no more audits past the previous page.</Text>
                <Button variant="default" size="xs" onClick={() => setQuery({ ...query, page: 1 })}>
                  Go to the first page
                </Button>
              </Group>
            ) : (
              <Text c="dimmed">
                {hasAuditFilters(query.filters)
                  ? 'No audits match these filters.'
                  : 'No audits yet. They appear here as audit messages arrive and as Junction records its own events.'}
              </Text>
            )}
          </Paper>
        ) : (
          <AuditTable rows={rows} />
        )}

        <Group justify="space-between">
          <PageSizeSelect sizes={PAGE_SIZES} value={query.size} onChange={(size) => setQuery({ filters: query.filters, page: 1, size })} />
          <Group gap="xs" component="nav" aria-label="Pages">
            <Button variant="default" size="xs" disabled={query.page <= 1} onClick={() => setQuery({ ...query, page: query.page - 1 })}>
              Previous page
            </Button>
            <Text size="sm" aria-current="page">
              Page {query.page}
            </Text>
            <Button variant="default" size="xs" disabled={!mayHaveMore || loading} onClick={() => setQuery({ ...query, page: query.page + 1 })}>
              Next page
            </Button>
          </Group>
        </Group>
      </Stack>
    </>
  );
}

export const AuditsPage = adminOnly('Audit log', 'Only administrators can read the audit log.', Audits);
