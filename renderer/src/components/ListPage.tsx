/**
 * The page of a simple list resource (clients, contact groups, users): a header with its buttons, a line saying what
 * the list is, the load error, a search box, the table, and one add/edit form in a dialog. The page gives its columns,
 * its form and its own dialogs; `useListPage` holds which form or deletion is open, so the columns' buttons can open
 * them.
 */
import { Fragment, useState } from 'react';
import type { ReactNode } from 'react';
import { Button, Group, Stack, Text, VisuallyHidden } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import type { ColumnDef } from '@tanstack/react-table';
import type { LoadStatus } from '../stores/list-store';
import { PageHeader } from './PageHeader';
import { ErrorAlert } from './ErrorAlert';
import { ListSearch } from './ListSearch';
import { FormModal } from './FormModal';
import type { Editing } from './FormModal';
import { DataTable } from './DataTable';
import type { ColumnMeta } from './DataTable';

/** Which form and which deletion a list page has open. */
export function useListPage<T>() {
  const [editing, setEditing] = useState<Editing<T>>({ mode: 'closed' });
  const [deleting, setDeleting] = useState<T | null>(null);
  return { editing, setEditing, closeForm: () => setEditing({ mode: 'closed' }), deleting, setDeleting };
}

/** The last column: the row's buttons, under a heading only screen readers hear. */
export function actionsColumn<T>(width: number, cell: (item: T) => ReactNode): ColumnDef<T, unknown> {
  return createColumnHelper<T>().display({
    id: 'actions',
    header: () => <VisuallyHidden>Actions</VisuallyHidden>,
    meta: { width } satisfies ColumnMeta,
    cell: (c) => (
      <Group gap={4} wrap="nowrap">
        {cell(c.row.original)}
      </Group>
    ),
  });
}

/** A row's Edit button, named after the item for screen readers ("Edit client lab"). */
export function EditButton({ name, onClick }: { name: string; onClick: () => void }) {
  return (
    <Button size="xs" variant="default" aria-label={`Edit ${name}`} onClick={onClick}>
      Edit
    </Button>
  );
}

export function DeleteButton({ name, onClick }: { name: string; onClick: () => void }) {
  return (
    <Button size="xs" variant="subtle" color="red" aria-label={`Delete ${name}`} onClick={onClick}>
      Delete
    </Button>
  );
}

export interface ListPageProps<T> {
  title: string;
  /** The list's name in a sentence: "contact groups". */
  plural: string;
  /** The header's buttons. */
  actions: ReactNode;
  intro: ReactNode;
  /** Shown between the introduction and the load error (a token shown once, say). */
  notice?: ReactNode;
  items: T[];
  status: LoadStatus;
  error: unknown;
  searchPlaceholder: string;
  /** The table's text when the search hides every row, and (`none`) when there is no row at all. */
  noMatch: string;
  none?: string;
  rowId: (item: T) => string;
  columns: ColumnDef<T, unknown>[];
  editing: Editing<T>;
  closeForm: () => void;
  formTitle: (item: T | null) => string;
  formSize?: 'md' | 'lg' | 'xl';
  /** The add (null) or edit form. */
  form: (item: T | null) => ReactNode;
  /** The page's other dialogs (the delete confirmation, ...). */
  children?: ReactNode;
}

export function ListPage<T>(props: ListPageProps<T>) {
  const { title, plural, items, status, editing, closeForm, rowId } = props;
  const [search, setSearch] = useState('');
  const item = editing.mode === 'edit' ? editing.item : null;
  return (
    <Stack>
      <PageHeader title={title}>{props.actions}</PageHeader>
      <Text size="sm" c="dimmed">
        {props.intro}
      </Text>
      {props.notice}
      <ErrorAlert error={props.error} action={`load the ${plural}`} />
      <ListSearch
        label={`Search ${plural}`}
        placeholder={props.searchPlaceholder}
        value={search}
        onChange={setSearch}
        loading={status === 'loading'}
        loadingLabel={`Loading ${plural}`}
      />
      <DataTable
        data={items}
        columns={props.columns}
        label={title}
        getRowId={rowId}
        search={search}
        empty={status === 'loading' ? 'Loading…' : search !== '' || props.none === undefined ? props.noMatch : props.none}
      />
      <FormModal opened={editing.mode !== 'closed'} onClose={closeForm} title={props.formTitle(item)} size={props.formSize}>
        {editing.mode !== 'closed' && <Fragment key={item === null ? 'new' : rowId(item)}>{props.form(item)}</Fragment>}
      </FormModal>
      {props.children}
    </Stack>
  );
}
