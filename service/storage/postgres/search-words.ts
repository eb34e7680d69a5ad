/**
 * Words as the PostgreSQL search index keeps and finds them. The tsvector is built from words split here, the way
 * `normaliseTransactionFilter` splits a search (runs of letters and digits, NFC, lower case, each cut at
 * MAX_KEY_LENGTH), not by PostgreSQL's text parser: that parser keeps `a.b@c.org`, `/a/b` or `2.5.1` as one token
 * each, so a search for `c` or `5` would miss them, and it would differ from the embedded engine's tokeniser.
 */
import { MAX_KEY_LENGTH } from '../../domain/clinical/clinical-key.js';

/**
 * The tsvector a row's words make (`search_docs.words`, a text of distinct words), as the GIN index
 * `search_docs_words` is built on it (migration 11): a search must spell it exactly so for the index to serve it.
 */
export const WORDS_VECTOR = (alias: string): string => `array_to_tsvector(string_to_array(${alias}.words, ' '))`;

/** A tsvector holds at most 1 MB of lexemes; the words beyond this budget are not indexed (the text is capped before). */
const MAX_WORD_BYTES = 512 * 1024;

/** The distinct words of a body's text, in first-seen order, within the tsvector's budget. */
export function indexWords(text: string): string[] {
  const words = new Set<string>();
  let bytes = 0;
  for (const match of text.normalize('NFC').toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = match[0].slice(0, MAX_KEY_LENGTH);
    if (words.has(word)) continue;
    bytes += Buffer.byteLength(word) + 1;
    if (bytes > MAX_WORD_BYTES) break;
    words.add(word);
  }
  return [...words];
}

/**
 * A tsquery's text requiring every word, each quoted as a lexeme so that nothing in it is read as an operator; it is
 * passed as a parameter (`$n::tsquery`), never written into the statement. The words come from the filter (letters
 * and digits only), the quoting keeps any other text a literal word too.
 */
export function allWordsQuery(words: readonly string[]): string {
  return words.map((word) => `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`).join(' & ');
}
