/**
 * A small (optionally sortable and searchable) table for the console's short configuration lists (clients, users, roles, channels), built on
 * @tanstack/react-table. It scrolls sideways inside its own container when a window is narrow, never the page.
 */
import { useState } from 'react';
import type { ReactNode } from 'react';
import { Table, Text, UnstyledButton } from '@mantine/core';
import { flexRender, getCoreRowModel, getFilteredRowModel, getSortedRowModel, useReactTable } from '@tanstack/react-table';
import type { ColumnDef, SortingState } from '@tanstack/react-table';

export interface DataTableProps<T> {
  data: T[];
  columns: ColumnDef<T, unknown>[];
  /** Names the table for screen readers. */
  label: string;
  getRowId: (row: T) => string;
  /** Text matched against every column's value. */
  search?: string;
  empty: ReactNode;
  minWidth?: number;
  /** Fixed layout keeps the columns at their given widths (use percentages) whatever the cells hold. */
  layout?: 'auto' | 'fixed';
  striped?: boolean;
  /** Where cells sit when a row is taller than they are. */
  cellAlign?: 'middle' | 'top';
  /** False for a list in the server's order with plain column headers. */
  sortable?: boolean;
  /** Marks the table busy for assistive technology while its rows are being fetched. */
  busy?: boolean;
}

/** Optional per-column settings, given as a column's `meta`. */
export interface ColumnMeta {
  width?: number | string;
}

function widthOf(meta: unknown): number | string | undefined {
  if (typeof meta !== 'object' || meta === null || !('width' in meta)) return undefined;
  const width = (meta as ColumnMeta).width;
  return typeof width === 'number' || typeof width === 'string' ? width : undefined;
}

const ARROW = { asc: ' ▲', desc: ' ▼' } as const;

export function DataTable<T>({ data, columns, label, getRowId, search, empty, minWidth = 760, layout, striped, cellAlign, sortable = true, busy }: DataTableProps<T>) {
  const [sorting, setSorting] = useState<SortingState>([]);
  const table = useReactTable({
    data,
    columns,
    state: { sorting, globalFilter: search ?? '' },
    onSortingChange: setSorting,
    enableSorting: sortable,
    getRowId,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getFilteredRowModel: getFilteredRowModel(),
    globalFilterFn: 'includesString',
  });
  const rows = table.getRowModel().rows;
  return (
    <Table.ScrollContainer minWidth={minWidth}>
      <Table aria-label={label} aria-busy={busy} layout={layout} striped={striped} verticalSpacing="xs" highlightOnHover>
        <Table.Thead>
          {table.getHeaderGroups().map((group) => (
            <Table.Tr key={group.id}>
              {group.headers.map((header) => {
                const sorted = header.column.getIsSorted();
                const title = flexRender(header.column.columnDef.header, header.getContext());
                return (
                  <Table.Th
                    key={header.id}
                    style={{ width: widthOf(header.column.columnDef.meta) }}
                    aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}
                  >
                    {header.column.getCanSort() ? (
                      <UnstyledButton onClick={header.column.getToggleSortingHandler()} fw={700} fz="sm">
                        {title}
                        {sorted === false ? '' : ARROW[sorted]}
                      </UnstyledButton>
                    ) : (
                      title
                    )}
                  </Table.Th>
                );
              })}
            </Table.Tr>
          ))}
        </Table.Thead>
        <Table.Tbody>
          {rows.length === 0 ? (
            <Table.Tr>
              <Table.Td colSpan={columns.length}>
                <Text c="dimmed" py="md" ta="center">
                  {empty}
                </Text>
              </Table.Td>
            </Table.Tr>
          ) : (
            rows.map((row) => (
              <Table.Tr key={row.id}>
                {row.getVisibleCells().map((cell) => (
                  <Table.Td key={cell.id} style={{ overflowWrap: 'anywhere', verticalAlign: cellAlign }}>
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))
          )}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
