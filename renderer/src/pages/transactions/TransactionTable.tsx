/** One server page of transactions as a table: selection boxes, and the path of each row links to its detail. */
import { useMemo } from 'react';
import { Anchor, Checkbox, Table, Text } from '@mantine/core';
import { flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import type { ColumnDef, RowSelectionState, Updater } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { TransactionView } from '../../../../service/contracts/transactions';
import type { ChannelName, ClientName } from '../../api/transactions';
import { StatusBadge, formatShortTime, formatTime } from './status';

export interface TransactionTableProps {
  rows: TransactionView[];
  channels: ChannelName[];
  clients: ClientName[];
  selected: RowSelectionState;
  onSelectedChange: (selected: RowSelectionState) => void;
}

const cellText = { style: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' } } as const;

export function TransactionTable({ rows, channels, clients, selected, onSelectedChange }: TransactionTableProps) {
  const channelName = useMemo(() => new Map(channels.map((c) => [c._id, c.name])), [channels]);
  const clientName = useMemo(() => new Map(clients.map((c) => [c._id, c.name === '' ? c.clientID : c.name])), [clients]);

  const columns = useMemo<ColumnDef<TransactionView>[]>(
    () => [
      {
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
            aria-label={`Select ${row.original.request.method} ${row.original.request.path} at ${formatTime(row.original.request.timestamp)}`}
            checked={row.getIsSelected()}
            onChange={row.getToggleSelectedHandler()}
          />
        ),
      },
      {
        id: 'time',
        header: 'Time',
        size: 180,
        cell: ({ row }) => (
          <Text size="sm" title={formatTime(row.original.request.timestamp)} {...cellText}>
            {formatShortTime(row.original.request.timestamp)}
          </Text>
        ),
      },
      { id: 'status', header: 'Status', size: 160, cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { id: 'method', header: 'Method', size: 80, cell: ({ row }) => <Text size="sm">{row.original.request.method}</Text> },
      {
        id: 'path',
        header: 'Path',
        cell: ({ row }) => {
          const { path, querystring } = row.original.request;
          const full = querystring === '' ? path : `${path}?${querystring}`;
          return (
            <Anchor component={Link} to={`/transactions/${row.original._id}`} size="sm" title={full} display="block" {...cellText}>
              {path}
            </Anchor>
          );
        },
      },
      {
        id: 'channel',
        header: 'Channel',
        size: 140,
        cell: ({ row }) => (
          <Text size="sm" {...cellText}>
            {channelName.get(row.original.channelID) ?? row.original.channelID}
          </Text>
        ),
      },
      {
        id: 'client',
        header: 'Client',
        size: 120,
        cell: ({ row }) => {
          const id = row.original.clientID;
          return (
            <Text size="sm" c={id === undefined ? 'dimmed' : undefined} {...cellText}>
              {id === undefined ? '–' : (clientName.get(id) ?? id)}
            </Text>
          );
        },
      },
      {
        id: 'response',
        header: 'Response',
        size: 90,
        cell: ({ row }) => <Text size="sm">{row.original.response?.status ?? '–'}</Text>,
      },
    ],
    [channelName, clientName],
  );

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
    <Table.ScrollContainer minWidth={900} type="native">
      <Table striped highlightOnHover verticalSpacing={6} style={{ tableLayout: 'fixed' }} aria-label="Transactions">
        <Table.Thead>
          {table.getHeaderGroups().map((group) => (
            <Table.Tr key={group.id}>
              {group.headers.map((header) => (
                <Table.Th key={header.id} style={header.column.id === 'path' ? undefined : { width: header.getSize() }}>
                  {flexRender(header.column.columnDef.header, header.getContext())}
                </Table.Th>
              ))}
            </Table.Tr>
          ))}
        </Table.Thead>
        <Table.Tbody>
          {table.getRowModel().rows.map((row) => (
            <Table.Tr key={row.id} bg={row.getIsSelected() ? 'var(--mantine-primary-color-light)' : undefined}>
              {row.getVisibleCells().map((cell) => (
                <Table.Td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
