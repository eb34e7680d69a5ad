/** The list's filters. Choices apply at once; typed text applies after a short pause, on Enter, or when leaving the field. */
import { useEffect, useState } from 'react';
import { Button, Group, MultiSelect, Paper, Select, SimpleGrid, TagsInput, Text, TextInput } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import type { ChannelName, ClientName } from '../../api/transactions';
import { EMPTY_FILTERS, dateOrderProblem, fromLocalInput, pathPatternProblem, responseStatusProblem, splitProperty, toLocalInput } from '../../data/transaction-filters';
import type { ListFilters } from '../../data/transaction-filters';
import { STATUSES, isStatus } from '../../data/status';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

interface TextFilterProps {
  label: string;
  placeholder?: string;
  description?: string;
  value: string;
  problem: (value: string) => string | null;
  onCommit: (value: string) => void;
}

/** A text filter with its own draft: the list follows once the text is valid and typing has paused. */
function TextFilter({ label, placeholder, description, value, problem, onCommit }: TextFilterProps) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  const commit = useDebouncedCallback((text: string) => {
    if (problem(text) === null && text !== value) onCommit(text);
  }, 500);
  const error = problem(draft);
  return (
    <TextInput
      label={label}
      placeholder={placeholder}
      description={description}
      value={draft}
      error={error}
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

interface ChoiceFilterProps {
  label: string;
  /** What is chosen, in lower case: "channel" gives "Any channel" and "Clear channel". */
  thing: string;
  data: (string | { value: string; label: string })[];
  value: string | null;
  onChange: (value: string | null) => void;
  /** Lets people type to narrow a long list. */
  searchable?: boolean;
}

/** One choice or none ("Any …"), with a named clear button. */
function ChoiceFilter({ label, thing, data, value, onChange, searchable = false }: ChoiceFilterProps) {
  return (
    <Select
      label={label}
      placeholder={`Any ${thing}`}
      data={data}
      value={value}
      onChange={onChange}
      searchable={searchable}
      clearable
      clearButtonProps={{ 'aria-label': `Clear ${thing}` }}
      nothingFoundMessage={searchable ? `No ${thing} by that name` : undefined}
    />
  );
}

interface DateFilterProps {
  label: string;
  value: string | null;
  end?: boolean;
  onCommit: (iso: string | null) => void;
}

function DateFilter({ label, value, end = false, onCommit }: DateFilterProps) {
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

export interface FiltersPanelProps {
  filters: ListFilters;
  channels: ChannelName[];
  clients: ClientName[];
  /** Clients can be listed by admins only; others get no client filter. */
  showClients: boolean;
  onChange: (filters: ListFilters) => void;
}

export function FiltersPanel({ filters, channels, clients, showClients, onChange }: FiltersPanelProps) {
  const change = (patch: Partial<ListFilters>) => onChange({ ...filters, ...patch });
  const channelOptions = channels.map((c) => ({ value: c._id, label: c.name }));
  if (filters.channel !== null && !channels.some((c) => c._id === filters.channel)) channelOptions.push({ value: filters.channel, label: filters.channel });
  const clientOptions = clients.map((c) => ({ value: c._id, label: c.name === '' ? c.clientID : `${c.name} (${c.clientID})` }));
  if (filters.client !== null && !clients.some((c) => c._id === filters.client)) clientOptions.push({ value: filters.client, label: filters.client });
  const [propertyError, setPropertyError] = useState<string | null>(null);
  const dateOrder = dateOrderProblem(filters);

  return (
    <Paper withBorder p="sm" mb="md" component="form" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="sm" verticalSpacing="xs">
        <MultiSelect
          label="Status"
          placeholder={filters.status.length === 0 ? 'Any status' : undefined}
          data={[...STATUSES]}
          value={filters.status}
          onChange={(values) => change({ status: values.filter(isStatus) })}
          clearable
          clearButtonProps={{ 'aria-label': 'Clear status' }}
        />
        <ChoiceFilter label="Channel" thing="channel" data={channelOptions} value={filters.channel} onChange={(channel) => change({ channel })} searchable />
        {showClients ? (
          <ChoiceFilter label="Client" thing="client" data={clientOptions} value={filters.client} onChange={(client) => change({ client })} searchable />
        ) : (
          <TextFilter
            label="Client"
            placeholder="Any client"
            description="As shown in the Client column"
            value={filters.client ?? ''}
            problem={(v) => (v === '' || /^[A-Za-z0-9_-]{1,64}$/.test(v) ? null : 'Letters, digits, - and _ only')}
            onCommit={(v) => change({ client: v === '' ? null : v })}
          />
        )}
        <ChoiceFilter label="Method" thing="method" data={METHODS} value={filters.method} onChange={(method) => change({ method })} />
        <TextFilter label="Path" placeholder="e.g. ^/lab/" description="A regular expression" value={filters.path} problem={pathPatternProblem} onCommit={(path) => change({ path })} />
        <TextFilter
          label="Response status"
          placeholder="e.g. 404 or 5xx"
          description="A code or a class"
          value={filters.response}
          problem={responseStatusProblem}
          onCommit={(response) => change({ response })}
        />
        <DateFilter label="From" value={filters.from} onCommit={(from) => change({ from })} />
        <DateFilter label="To" value={filters.to} end onCommit={(to) => change({ to })} />
      </SimpleGrid>
      {dateOrder !== null && (
        <Text c="red" size="sm" mt={4} role="alert">
          {dateOrder}
        </Text>
      )}
      <Group mt="xs" align="flex-end" wrap="nowrap">
        <TagsInput
          style={{ flex: 1 }}
          label="Properties"
          description="name=value; press Enter after each"
          placeholder={filters.properties.length === 0 ? 'e.g. patient=123' : undefined}
          value={filters.properties}
          error={propertyError}
          onChange={(values) => {
            const bad = values.find((v) => splitProperty(v) === null);
            setPropertyError(bad === undefined ? null : `"${bad}" is not name=value`);
            change({ properties: values.filter((v) => splitProperty(v) !== null) });
          }}
          clearable
          clearButtonProps={{ 'aria-label': 'Clear properties' }}
        />
        <Button variant="default" onClick={() => onChange(EMPTY_FILTERS)}>
          Clear filters
        </Button>
      </Group>
    </Paper>
  );
}
