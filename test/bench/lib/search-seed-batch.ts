/**
 * What the search benchmark seeds for message `i` of the clinical corpus (lib/clinical-corpus.ts): the log row the
 * service would have stored (metadata only: the bodies are not kept, see scenarios/search.ts) and the index entry
 * the indexer would have written. Both are pure functions of `i`, so worker threads build ranges of them
 * (search-seed-workers.ts) and the scenario's questions name the same transactions.
 */
import type pg from 'pg';
import type { ClinicalCorpus, CorpusMessage, CorpusOptions } from './clinical-corpus.js';
import { extractEntry } from './search-index-seeding.js';
import type { IndexedTransaction } from '../../../service/storage/search-index.js';

/** The seeded channels: HL7 v2 posted to the lab interface, FHIR Bundles to the FHIR endpoint. */
export const CHANNELS = [
  { name: 'lab-hl7', urlPattern: '^/hl7/.*$', path: '/hl7/lab' },
  { name: 'fhir-bundles', urlPattern: '^/fhir/.*$', path: '/fhir' },
] as const;

/** A log row as both engines' seeders insert it. */
export interface Row {
  id: string;
  ts: number;
  channel: string;
  status: string;
  code: number;
  path: string;
  doc: string;
}

/** A range of the corpus as seeded: its rows and its index entries, in message order. */
export interface SeedBatch {
  from: number;
  rows: Row[];
  entries: IndexedTransaction[];
}

/** The transaction id of message `i`: its second, then `i`, as an ObjectId is laid out (sortable by time). */
export function transactionIdOf(message: CorpusMessage): string {
  return `${Math.floor(message.at / 1000).toString(16).padStart(8, '0')}${message.index.toString(16).padStart(16, '0')}`;
}

/** 90% Successful, 5% Failed, 3% Completed, 2% Completed with error(s), as log-scale seeds. */
function outcome(message: CorpusMessage): { status: string; code: number } {
  const r = (message.index * 2_654_435_761) % 100;
  if (r < 90) return { status: 'Successful', code: 200 };
  if (r < 95) return { status: 'Failed', code: 503 };
  if (r < 98) return { status: 'Completed', code: 404 };
  return { status: 'Completed with error(s)', code: 200 };
}

/** The log row the service would have stored for `message`. */
function rowOf(message: CorpusMessage, channelIds: readonly string[]): Row {
  const hl7 = message.kind !== 'FHIR Bundle';
  const channel = channelIds[hl7 ? 0 : 1] ?? '';
  const { path } = CHANNELS[hl7 ? 0 : 1];
  const id = transactionIdOf(message);
  const { status, code } = outcome(message);
  const headers = { 'content-type': message.contentType, 'user-agent': hl7 ? 'interface-engine/7.1' : 'clinic-emr/4.2', 'x-request-id': id };
  const doc = {
    _id: id,
    channelID: channel,
    clientIP: '10.0.0.12',
    status,
    request: { host: 'junction.clinic.local', port: 5001, path, querystring: '', method: 'POST', headers, timestamp: { $date: message.at } },
    response: { status: code, headers: { 'content-type': message.contentType }, timestamp: { $date: message.at + 40 } },
    routes: [],
    orchestrations: [],
    canRerun: true,
    autoRetry: false,
    autoRetryAttempt: 0,
  };
  return { id, ts: message.at, channel, status, code, path, doc: JSON.stringify(doc) };
}

/** Messages `from` to `to` (exclusive) of the corpus as seeded: rows, and entries by the service's extraction. */
export function seedBatch(corpus: ClinicalCorpus, channelIds: readonly string[], from: number, to: number): SeedBatch {
  const rows: Row[] = [];
  const entries: IndexedTransaction[] = [];
  for (let i = from; i < to; i++) {
    const message = corpus.message(i);
    const row = rowOf(message, channelIds);
    rows.push(row);
    entries.push(extractEntry({ id: row.id, requestTimestamp: new Date(message.at), channelID: row.channel, request: message.request, response: message.response, contentType: message.contentType }));
  }
  return { from, rows, entries };
}

/** What a seeding worker is started with: the corpus it builds from and the channels its rows belong to. */
export interface SeedWorkerData {
  corpus: CorpusOptions;
  channelIds: string[];
  /** Given: the worker writes its ranges to this database itself (rows, then the index) and reports a WrittenRange. */
  postgresUrl?: string;
}

/** A range a worker wrote to PostgreSQL, with where its time went (or why it failed). */
export interface WrittenRange {
  from: number;
  count: number;
  generateMs: number;
  rowsMs: number;
  indexMs: number;
  error?: string;
}

const INSERT_ROWS = `INSERT INTO transactions (id, ts, channel, client, status, code, method, path, rerun, instance, doc)
  SELECT id, ts, channel, NULL, status, code, 'POST', path, false, 'bench', doc::jsonb
    FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[]) AS r(id, ts, channel, status, code, path, doc)`;

/** The rows of a batch in one statement, as arrays the server unnests (as log-scale-pg seeds them). */
export async function insertPostgresRows(client: pg.Client, rows: readonly Row[]): Promise<void> {
  await client.query(INSERT_ROWS, [rows.map((r) => r.id), rows.map((r) => r.ts), rows.map((r) => r.channel), rows.map((r) => r.status), rows.map((r) => r.code), rows.map((r) => r.path), rows.map((r) => r.doc)]);
}
