/**
 * A seeding worker of the search benchmark (search-seed-workers.ts). It builds the ranges of the corpus it is asked
 * for, rows and index entries (search-seed-batch.ts), and either posts each back (the embedded engine's single
 * writer writes them) or, given a PostgreSQL URL, writes it itself: its rows on a connection of its own, then its
 * entries through the engine's `SearchIndex.write`, building the next range while the server works on this one.
 */
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { ClinicalCorpus } from './clinical-corpus.js';
import { insertPostgresRows, seedBatch } from './search-seed-batch.js';
import type { SeedBatch, SeedWorkerData, WrittenRange } from './search-seed-batch.js';
import { openPostgresSearchIndex } from './search-index-seeding.js';

const data = workerData as SeedWorkerData;
const corpus = new ClinicalCorpus(data.corpus);
const port = parentPort;

function built(range: { from: number; to: number }): { batch: SeedBatch; ms: number } {
  const started = performance.now();
  return { batch: seedBatch(corpus, data.channelIds, range.from, range.to), ms: performance.now() - started };
}

if (port !== null && data.postgresUrl === undefined) {
  port.on('message', (range: { from: number; to: number }) => port.postMessage(built(range).batch));
} else if (port !== null && data.postgresUrl !== undefined) {
  const url = data.postgresUrl;
  const client = new pg.Client({ connectionString: url });
  const ready = client.connect().then(() => openPostgresSearchIndex(url));
  let chain: Promise<unknown> = ready;
  port.on('message', (range: { from: number; to: number }) => {
    const { batch, ms } = built(range);
    chain = chain.then(async () => {
      const index = await ready;
      let at = performance.now();
      await insertPostgresRows(client, batch.rows);
      const rowsMs = performance.now() - at;
      at = performance.now();
      await index.write(batch.entries);
      const written: WrittenRange = { from: range.from, count: batch.rows.length, generateMs: ms, rowsMs, indexMs: performance.now() - at };
      port.postMessage(written);
    }).catch((err: unknown) => {
      port.postMessage({ from: range.from, count: 0, generateMs: 0, rowsMs: 0, indexMs: 0, error: err instanceof Error ? err.message : String(err) } satisfies WrittenRange);
    });
  });
}
