/**
 * The transaction list's one search box (issue 37): a patient ID, order number or control ID, or any words of the
 * messages. One word is looked up as a key first (searchFromBox); the line under the box says what was searched and
 * offers the same value as text, which is what a person wants when the key search found nothing.
 */
import { useEffect, useState } from 'react';
import { Button, Group, Text, TextInput } from '@mantine/core';
import { NO_SEARCH, boxValue, searchFromBox, searchInWords, textAlternative } from '../../data/transaction-filters';
import type { ListFilters, SearchField } from '../../data/transaction-filters';

export interface SearchBoxProps {
  filters: ListFilters;
  /** Matches of the search on screen, null while counted. */
  total: number | null;
  onSearch: (search: Pick<ListFilters, SearchField>) => void;
}

export function SearchBox({ filters, total, onSearch }: SearchBoxProps) {
  const [value, setValue] = useState(boxValue(filters));
  // A search set elsewhere (a link from a message, the browser's back button) shows in the box.
  useEffect(() => setValue(boxValue(filters)), [filters]);
  const searched = searchInWords(filters);
  const alternative = textAlternative(filters);
  return (
    <div role="search" aria-label="Search transactions">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onSearch(searchFromBox(value));
        }}
      >
        <Group gap="xs" align="flex-end" wrap="nowrap">
          <TextInput
            style={{ flex: 1, minWidth: 0 }}
            label="Search messages"
            placeholder="Patient ID, order number, control ID or any text"
            value={value}
            maxLength={1000}
            onChange={(event) => setValue(event.currentTarget.value)}
          />
          <Button type="submit">Search</Button>
          {searched !== null && (
            <Button
              variant="default"
              onClick={() => {
                setValue('');
                onSearch(NO_SEARCH);
              }}
            >
              Clear
            </Button>
          )}
        </Group>
      </form>
      {searched !== null && (
        <Group gap="xs" mt={4} data-search-summary>
          <Text size="sm" c="dimmed">
            {total === 0 ? `No message has ${searched}.` : `Messages with ${searched}.`}
            {filters.text !== '' && ' Only the bodies you may read are searched.'}
          </Text>
          {alternative !== null && (
            <Button size="compact-sm" variant="subtle" onClick={() => onSearch({ ...NO_SEARCH, text: alternative })}>
              Search the message text for “{alternative}”
            </Button>
          )}
        </Group>
      )}
    </div>
  );
}
