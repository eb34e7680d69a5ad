/**
 * List filters and unlimited lists on the SQLite log (issue 14): 100,000 transactions, each with a secondary route
 * and a mediator's orchestration, then the filters OpenHIM's console sends that read inside the stored document
 * (routes.*, orchestrations.*, childIDs) timed for a page of 20 and a count, beside the indexed ones; and the heap
 * while an unlimited list (`filterLimit=0`) is streamed, against the same rows read as one page.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pino } from 'pino';
import { newTransactionId } from '../../../service/storage/transaction-ids.js';
import { createSqliteTransactionLog } from '../../../service/storage/sqlite/transaction-log.js';
import type { ExchangeRecord, TransactionFilter, TransactionLog, TransactionRecord } from '../../../service/storage/transactions.js';
import { round } from '../lib/load.js';
import { timed } from './log-scale.js';

export interface FilterTiming {
  filter: string;
  matches: number;
  pageFirstMs: number;
  pageMedianMs: number;
  countMs: number;
  /** The longest the event loop waited while the count ran: what the proxy would wait at worst. */
  countMaxPauseMs: number;
}

export interface ListFiltersFigures {
  transactions: number;
  seedSeconds: number;
  filters: FilterTiming[];
  /** Peak heap above the heap before, in MB, while all rows are streamed or held as one page. */
  heap: { rows: number; streamedPeakMb: number; pagePeakMb: number };
}

function exchange(name: string, at: Date, path: string, status: number): ExchangeRecord {
  return {
    name,
    request: { host: `${name}.clinic.local`, port: 8080, path, querystring: 'patient=42', method: 'POST', headers: { 'content-type': 'application/fhir+json' }, timestamp: at },
    response: { status, headers: { 'content-type': 'application/fhir+json' }, timestamp: at },
  };
}

async function seed(log: TransactionLog, count: number, end: number): Promise<void> {
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const timestamp = new Date(end - (count - i) * 1000);
    const record: TransactionRecord = {
      _id: newTransactionId(timestamp),
      channelID: `channel-${i % 5}`,
      clientIP: '10.0.0.12',
      status: 'Successful',
      request: { host: 'junction.clinic.local', port: 5001, path: `/fhir/Observation/${i}`, querystring: '', method: 'POST', headers: { 'content-type': 'application/fhir+json' }, timestamp },
      response: { status: 200, headers: {}, timestamp },
      // One in a hundred has a failing secondary route; one in two hundred was re-run.
      routes: [exchange('audit', timestamp, '/audit', i % 100 === 0 ? 503 : 201)],
      orchestrations: [exchange('mpi', timestamp, i % 2 === 0 ? '/mpi/Patient' : '/mpi/Practitioner', 200)],
      ...(i % 200 === 0 ? { childIDs: [newTransactionId(timestamp)], wasRerun: true } : {}),
      canRerun: true,
      autoRetry: false,
      autoRetryAttempt: 0,
    };
    pending.push(log.insert(record));
    if (pending.length >= 1000) await Promise.all(pending.splice(0));
  }
  await Promise.all(pending);
}

function heapMb(): number {
  return process.memoryUsage().heapUsed / 2 ** 20;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Peak heap above the starting heap while `run` goes, sampled every `every` rows it reports. */
async function peakHeap(run: (sample: () => void) => Promise<void>): Promise<number> {
  gc?.();
  const before = heapMb();
  let peak = before;
  await run(() => {
    peak = Math.max(peak, heapMb());
  });
  return round(peak - before, 1);
}

export async function listFiltersScenario(count: number): Promise<ListFiltersFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'junction-bench-filters-'));
  const log = createSqliteTransactionLog({ file: join(dir, 'transactions.sqlite'), logger: pino({ level: 'silent' }) });
  try {
    await log.open();
    const seedStarted = performance.now();
    await seed(log, count, Date.now());
    const seedSeconds = round((performance.now() - seedStarted) / 1000, 1);

    const cases: [string, TransactionFilter][] = [
      ['none (newest page)', {}],
      ['channel (indexed)', { channelID: ['channel-3'] }],
      ['routes.response.status 5xx (1 %)', { routes: { statusCode: '5xx' } }],
      ['routes.response.status 4xx (no match: whole log)', { routes: { statusCode: '4xx' } }],
      ['routes.request.path + host', { routes: { path: '(?i)^/AUDIT', host: 'audit.clinic.local' } }],
      ['orchestrations.request.path (50 %)', { orchestrations: { path: '(?i)patient' } }],
      ['childIDs: re-run before (0.5 %)', { hasChildren: true }],
      ['childIDs: never re-run', { hasChildren: false }],
      ['channel + routes 5xx', { channelID: ['channel-0'], routes: { statusCode: '5xx' } }],
      ['request.querystring (no match: whole log)', { querystring: '(?i)patient=' }],
    ];
    const filters: FilterTiming[] = [];
    for (const [name, filter] of cases) {
      const page = await timed(() => log.page(filter, { limit: 20 }), 5);
      let matches = 0;
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      const counted = await timed(async () => {
        matches = await log.count(filter);
      }, 1);
      delay.disable();
      filters.push({ filter: name, matches, pageFirstMs: page.firstMs, pageMedianMs: page.medianMs, countMs: counted.firstMs, countMaxPauseMs: round(delay.max / 1e6, 1) });
    }

    const streamedPeakMb = await peakHeap(async (sample) => {
      let n = 0;
      for await (const tx of log.stream({}, { limit: 0 })) {
        // What the route does with each row: one serialised line, then dropped.
        JSON.stringify(tx);
        if (++n % 1000 === 0) sample();
      }
    });
    const pagePeakMb = await peakHeap(async (sample) => {
      const rows = await log.page({}, { limit: count });
      sample();
      const text = JSON.stringify(rows);
      sample();
      if (text.length === 0) throw new Error('empty page');
    });
    return { transactions: count, seedSeconds, filters, heap: { rows: count, streamedPeakMb, pagePeakMb } };
  } finally {
    await log.close();
    await rm(dir, { recursive: true, force: true });
  }
}
