/**
 * The key a transaction was found by (issue 37), for the body views to highlight: set by the transaction page from
 * its URL (`?field=PID-3&value=1004`, as the list's matching key links to it), read by BodyView and Hl7View; and the
 * words of a text search it was found by (`?words=hemoglobin low`), marked wherever they appear as whole words.
 */
import { createContext, useContext } from 'react';
import { searchWords } from '../data/search-keys';

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

/** The words of the text search the page was reached from; none when it was not. */
export const SearchWordsContext = createContext<readonly string[]>([]);

export function useSearchWords(): readonly string[] {
  return useContext(SearchWordsContext);
}

/** The words a page's URL asks to mark (`words`), as the search split them. */
export function wordsFromParams(params: URLSearchParams): string[] {
  return searchWords(params.get('words') ?? '');
}
