/**
 * The CSV export of transactions: fixed columns, one row per transaction, cells safe to open in a spreadsheet. The
 * first eleven columns are those of earlier versions, in the same order; the channel's and client's names and the
 * reason (issue 36) follow them, so a sheet or script that reads columns by position keeps working.
 */
import { recordedReason } from '../../domain/transactions/transaction-reason.js';
import type { TransactionRecord } from '../../storage/transactions.js';
import type { TransactionNames } from './transactions.js';

/** The fixed columns of the CSV export. */
export const CSV_COLUMNS = ['_id', 'timestamp', 'status', 'channelID', 'clientID', 'clientIP', 'method', 'path', 'querystring', 'responseStatus', 'durationMs', 'channelName', 'clientName', 'reason'] as const;

/** The header line of the export. */
export const CSV_HEADER = `${CSV_COLUMNS.join(',')}\r\n`;

function csvCell(value: string | number | undefined): string {
  if (value === undefined) return '';
  let text = String(value);
  // A cell starting like a formula is run by spreadsheets; the caller controls paths, query strings, names and the
  // bodies a reason quotes.
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One transaction as a CSV line, in the order of CSV_COLUMNS; names as `names` gives them (empty when unknown). */
export function csvRow(tx: TransactionRecord, names?: TransactionNames): string {
  const started = tx.request.timestamp;
  const ended = tx.response?.timestamp;
  const cells = [
    tx._id,
    started.toISOString(),
    tx.status,
    tx.channelID,
    tx.clientID,
    tx.clientIP,
    tx.request.method,
    tx.request.path,
    tx.request.querystring,
    tx.response?.status,
    ended === undefined ? undefined : ended.getTime() - started.getTime(),
    names?.channel(tx.channelID),
    tx.clientID === undefined ? undefined : names?.client(tx.clientID),
    recordedReason(tx),
  ];
  return `${cells.map(csvCell).join(',')}\r\n`;
}
