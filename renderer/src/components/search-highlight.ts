/**
 * The key a transaction was found by (issue 37), for the body views to highlight: set by the transaction page from
 * its URL (`?field=PID-3&value=1004`, as the list's matching key links to it), read by BodyView and Hl7View.
 */
import { createContext, useContext } from 'react';

export interface SearchHighlight {
  /** Where the key was read: `PID-3`, `ORC-2`, `Patient.identifier`; absent: wherever the value appears. */
  field?: string;
  value: string;
}

export const SearchHighlightContext = createContext<SearchHighlight | null>(null);

export function useSearchHighlight(): SearchHighlight | null {
  return useContext(SearchHighlightContext);
}

/** The highlight a page's URL asks for, or null. */
export function highlightFromParams(params: URLSearchParams): SearchHighlight | null {
  const value = (params.get('value') ?? '').trim();
  if (value === '') return null;
  const field = (params.get('field') ?? '').trim();
  return field === '' ? { value } : { field, value };
}
