/**
 * The filter panel of a long list (transactions, the audit log) and its fields. Choices apply at once; typed text
 * applies after a short pause, on Enter, or when leaving the field. Each list gives its own fields, the problem with
 * its dates (if any), and what sits beside the Clear filters button.
 */
import { useEffect, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { Button, Group, Paper, Select, SimpleGrid, Text, TextInput } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { fromLocalInput, toLocalInput } from '../data/transaction-filters';

/**
 * A panel's `change(patch)`: each patch applies to the newest filters, including those committed since the last render,
 * so two fields committed in quick succession (one on blur, the next on Enter, before the address has re-rendered the
 * page) both count. Spreading the rendered `filters` instead let the second commit drop the first.
 */
export function useFilterChange<F extends object>(filters: F, onChange: (next: F) => void): (patch: Partial<F>) => void {
  const latest = useRef(filters);
  useEffect(() => {
    latest.current = filters;
  }, [filters]);
  return (patch) => {
    latest.current = { ...latest.current, ...patch };
    onChange(latest.current);
  };
}

export interface FilterPanelProps {
  /** The fields, four to a row on a wide window. */
  children: ReactNode;
  /** Why the dates cannot both hold ("From is after To"), said under the fields. */
  dateProblem: string | null;
  onClear: () => void;
  /** What sits left of Clear filters: a wide field (bottoms aligned) or a note. */
  beside: ReactNode;
  besideIsField?: boolean;
}

export function FilterPanel({ children, dateProblem, onClear, beside, besideIsField = false }: FilterPanelProps) {
  return (
    <Paper withBorder p="sm" mb="md" component="form" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="sm" verticalSpacing="xs">
        {children}
      </SimpleGrid>
      {dateProblem !== null && (
        <Text c="red" size="sm" mt={4} role="alert">
          {dateProblem}
        </Text>
      )}
      <Group mt="xs" {...(besideIsField ? { align: 'flex-end' } : { justify: 'space-between' })}>
        {beside}
        <Button variant="default" onClick={onClear}>
          Clear filters
        </Button>
      </Group>
    </Paper>
  );
}

export interface TextFilterProps {
  label: string;
  placeholder?: string;
  description?: string;
  value: string;
  problem?: (value: string) => string | null;
  onCommit: (value: string) => void;
}

/** A text filter with its own draft: the list follows once the text is valid and typing has paused. */
export function TextFilter({ label, placeholder, description, value, problem = () => null, onCommit }: TextFilterProps) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  const commit = useDebouncedCallback((text: string) => {
    if (problem(text) === null && text !== value) onCommit(text);
  }, 500);
  return (
    <TextInput
      label={label}
      placeholder={placeholder}
      description={description}
      value={draft}
      error={problem(draft)}
      onChange={(e) => {
        setDraft(e.currentTarget.value);
        commit(e.currentTarget.value);
      }}
      onKeyDown={(e) => {
        if (e.key === 'Enter') commit.flush();
      }}
      onBlur={() => commit.flush()}
    />
  );
}

type Option = string | { value: string; label: string };

export interface ChoiceFilterProps {
  label: string;
  /** What is chosen, in lower case: "channel" gives "Any channel" and "Clear channel". */
  thing: string;
  data: Option[];
  value: string | null;
  onChange: (value: string | null) => void;
  /** Lets people type to narrow the list; `long` does so when it has more than eight choices. */
  searchable?: boolean | 'long';
  /** Keeps a chosen value the list lacks (one from the address, or a deleted channel's id) as a choice. */
  keepUnknown?: boolean;
  /** Says "No … by that name" when nothing is left to choose, even where the list cannot be typed in. */
  alwaysSayNothingFound?: boolean;
}

/** One choice or none ("Any …"), with a named clear button. */
export function ChoiceFilter({ label, thing, data, value, onChange, searchable = false, keepUnknown = false, alwaysSayNothingFound = false }: ChoiceFilterProps) {
  const known = value === null || data.some((d) => (typeof d === 'string' ? d : d.value) === value);
  const options = keepUnknown && !known ? [...data, { value, label: value }] : data;
  const search = searchable === 'long' ? options.length > 8 : searchable;
  return (
    <Select
      label={label}
      placeholder={`Any ${thing}`}
      data={options}
      value={value}
      onChange={onChange}
      searchable={search}
      clearable
      clearButtonProps={{ 'aria-label': `Clear ${thing}` }}
      nothingFoundMessage={search || alwaysSayNothingFound ? `No ${thing} by that name` : undefined}
    />
  );
}

export interface DateFilterProps {
  label: string;
  value: string | null;
  /** The end of a range: a minute given counts to its last millisecond. */
  end?: boolean;
  onCommit: (iso: string | null) => void;
}

export function DateFilter({ label, value, end = false, onCommit }: DateFilterProps) {
  return (
    <TextInput
      type="datetime-local"
      label={label}
      value={toLocalInput(value)}
      onChange={(e) => {
        const text = e.currentTarget.value;
        if (text === '' || fromLocalInput(text, end) !== null) onCommit(fromLocalInput(text, end));
      }}
    />
  );
}
