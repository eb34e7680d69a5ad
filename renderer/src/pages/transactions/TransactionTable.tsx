/**
 * One server page of transactions as a table: selection boxes, and the path of each row links to its detail. A tcp or
 * tls channel's transaction shows the channel's transport in place of its placeholder method and path (POST /). Each
 * row says why it did not succeed (its stored `reason`, issue 36) and names its channel and client as the answer
 * gives them (so users who may not read clients see names too). On a narrow screen (a phone, 390 px) each row is one
 * cell: time, status, channel and reason, stacked.
 */
import { memo, useCallback, useMemo } from 'react';
import type { CSSProperties } from 'react';
import { Anchor, Checkbox, Group, Table } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import type { ColumnDef, Row, RowSelectionState, Updater } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { TransactionView } from '../../../../service/contracts/transactions';
import type { ChannelName, ClientName } from '../../api/transactions';
import { formatShortTime, formatTime } from '../../data/status';
import { StatusBadge } from '../../components/StatusBadge';
import { rowRequest } from '../../data/transport';
import { detailPath, matchWords } from './match';

export interface TransactionTableProps {
  rows: TransactionView[];
  channels: ChannelName[];
  clients: ClientName[];
  selected: RowSelectionState;
  onSelectedChange: (selected: RowSelectionState) => void;
  /** The text search the rows were found by (`text=`), for their links to mark its words; '' when none. */
  searchText?: string;
}

const cellText = { style: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' } } as const;
// Plain spans in the plain cells: a page holds up to 100 rows, and a component per cell is what made turning pages slow.
const plain: CSSProperties = { ...cellText.style, display: 'block', fontSize: 'var(--mantine-font-size-sm)' };
const dimmed: CSSProperties = { ...plain, color: 'var(--mantine-color-dimmed)' };
// A reason may be long (200 characters): two lines at most in the narrow layout, its whole text on hover.
/** The key a row was found by, under its path. */
function MatchLine({ tx }: { tx: TransactionView }) {
  if (tx.match === undefined || tx.match.length === 0) return null;
  const words = tx.match.map(matchWords).join('; ');
  return (
    <span style={{ ...plain, fontSize: 'var(--mantine-font-size-xs)' }} title={words} data-match>
      {words}
    </span>
  );
}

const clamped: CSSProperties = { display: '-webkit-box', WebkitLineClamp: 2, WebkitBoxOrient: 'vertical', overflow: 'hidden', overflowWrap: 'anywhere', fontSize: 'var(--mantine-font-size-sm)' };

/** Below this width the rows are stacked in one cell rather than nine columns scrolled sideways. */
export const NARROW_LIST = '(max-width: 48em)';

/**
 * One row, redrawn only when its transaction, its selection or the names it shows change: the page around it
 * re-renders on every keystroke in a filter, every loading flag and every live event.
 */
const TransactionRow = memo(
  function TransactionRow({ row }: { row: Row<TransactionView>; selected: boolean; names: unknown }) {
    return (
      <Table.Tr bg={row.getIsSelected() ? 'var(--mantine-primary-color-light)' : undefined}>
        {row.getVisibleCells().map((cell) => (
          <Table.Td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</Table.Td>
        ))}
      </Table.Tr>
    );
  },
  (before, after) => before.row.original === after.row.original && before.selected === after.selected && before.names === after.names,
);

function TransactionTableView({ rows, channels, clients, selected, onSelectedChange, searchText = '' }: TransactionTableProps) {
  const channelById = useMemo(() => new Map(channels.map((c) => [c._id, c])), [channels]);
  const clientName = useMemo(() => new Map(clients.map((c) => [c._id, c.name === '' ? c.clientID : c.name])), [clients]);
  const narrow = useMediaQuery(NARROW_LIST) ?? false;
  /** The channel's name as the answer gave it, else as the channel list has it, else its id. */
  const channelOf = useCallback((tx: TransactionView): string => tx.channelName ?? channelById.get(tx.channelID)?.name ?? tx.channelID, [channelById]);
  const clientOf = useCallback((tx: TransactionView): string | undefined => (tx.clientID === undefined ? undefined : (tx.clientName ?? clientName.get(tx.clientID) ?? tx.clientID)), [clientName]);

  /** A row's selection box is named by what the row shows: `GET /lab/results`, `MLLP over TCP, port 2575`. */
  const selectName = useCallback((tx: TransactionView): string => rowRequest(tx.request, channelById.get(tx.channelID)).name, [channelById]);

  const columns = useMemo<ColumnDef<TransactionView>[]>(() => {
    const select: ColumnDef<TransactionView> = {
      id: 'select',
      size: 40,
      header: ({ table }) => (
        <Checkbox
          aria-label="Select all on this page"
          checked={table.getIsAllPageRowsSelected()}
          indeterminate={table.getIsSomePageRowsSelected()}
          onChange={table.getToggleAllPageRowsSelectedHandler()}
        />
      ),
      cell: ({ row }) => (
        <Checkbox
          aria-label={`Select ${selectName(row.original)} at ${formatTime(row.original.request.timestamp)}`}
          checked={row.getIsSelected()}
          onChange={row.getToggleSelectedHandler()}
        />
      ),
    };
    if (narrow) {
      return [
        select,
        {
          id: 'transaction',
          header: 'Transaction',
          cell: ({ row }) => {
            const tx = row.original;
            const { method, path } = rowRequest(tx.request, channelById.get(tx.channelID));
            return (
              <div style={{ minWidth: 0 }}>
                <Group gap={6} wrap="nowrap" justify="space-between">
                  <Anchor component={Link} to={detailPath(tx, searchText)} size="sm" title={formatTime(tx.request.timestamp)} {...cellText}>
                    {formatShortTime(tx.request.timestamp)}
                  </Anchor>
                  <StatusBadge status={tx.status} />
                </Group>
                <span style={dimmed} title={`${method} ${path}`}>
                  {channelOf(tx)}
                  {tx.response === undefined ? '' : ` · ${tx.response.status}`}
                </span>
                <MatchLine tx={tx} />
                {tx.reason !== undefined && (
                  <span style={clamped} title={tx.reason} data-reason>
                    {tx.reason}
                  </span>
                )}
              </div>
            );
          },
        },
      ];
    }
    return [
      select,
      {
        id: 'time',
        header: 'Time',
        size: 160,
        cell: ({ row }) => (
          <span title={formatTime(row.original.request.timestamp)} style={plain}>
            {formatShortTime(row.original.request.timestamp)}
          </span>
        ),
      },
      { id: 'status', header: 'Status', size: 150, cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      {
        id: 'method',
        header: 'Method',
        size: 80,
        cell: ({ row }) => {
          const { method } = rowRequest(row.original.request, channelById.get(row.original.channelID));
          return (
            <span style={plain} title={method}>
              {method}
            </span>
          );
        },
      },
      {
        id: 'path',
        header: 'Path',
        cell: ({ row }) => {
          const { path, title } = rowRequest(row.original.request, channelById.get(row.original.channelID));
          return (
            <>
              <Anchor component={Link} to={detailPath(row.original, searchText)} size="sm" title={title} display="block" {...cellText}>
                {path}
              </Anchor>
              <MatchLine tx={row.original} />
            </>
          );
        },
      },
      {
        id: 'channel',
        header: 'Channel',
        size: 130,
        cell: ({ row }) => {
          const name = channelOf(row.original);
          return (
            <span style={plain} title={name}>
              {name}
            </span>
          );
        },
      },
      {
        id: 'client',
        header: 'Client',
        size: 120,
        cell: ({ row }) => {
          const name = clientOf(row.original);
          return (
            <span style={name === undefined ? dimmed : plain} title={name}>
              {name ?? '–'}
            </span>
          );
        },
      },
      {
        id: 'response',
        header: 'Response',
        size: 80,
        cell: ({ row }) => <span style={plain}>{row.original.response?.status ?? '–'}</span>,
      },
      {
        id: 'reason',
        header: 'Reason',
        size: 220,
        cell: ({ row }) => {
          const { reason } = row.original;
          return reason === undefined ? (
            <span style={dimmed}>–</span>
          ) : (
            <span style={plain} title={reason} data-reason>
              {reason}
            </span>
          );
        },
      },
    ];
  }, [channelById, channelOf, clientOf, narrow, searchText, selectName]);

  const table = useReactTable({
    data: rows,
    columns,
    getRowId: (row) => row._id,
    getCoreRowModel: getCoreRowModel(),
    manualPagination: true,
    enableRowSelection: true,
    state: { rowSelection: selected },
    onRowSelectionChange: (updater: Updater<RowSelectionState>) => onSelectedChange(typeof updater === 'function' ? updater(selected) : updater),
  });

  return (
    <Table.ScrollContainer minWidth={narrow ? 0 : 1100} type="native">
      <Table striped highlightOnHover verticalSpacing={6} style={{ tableLayout: 'fixed' }} aria-label="Transactions">
        <Table.Thead>
          {table.getHeaderGroups().map((group) => (
            <Table.Tr key={group.id}>
              {group.headers.map((header) => (
                <Table.Th key={header.id} style={header.column.id === 'path' || header.column.id === 'transaction' ? undefined : { width: header.getSize() }}>
                  {flexRender(header.column.columnDef.header, header.getContext())}
                </Table.Th>
              ))}
            </Table.Tr>
          ))}
        </Table.Thead>
        <Table.Tbody>
          {table.getRowModel().rows.map((row) => (
            <TransactionRow key={row.id} row={row} selected={row.getIsSelected()} names={columns} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** The table is redrawn only when its rows, names or selection change, not when the page around it does. */
export const TransactionTable = memo(TransactionTableView);
