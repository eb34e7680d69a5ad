/**
 * The corpus as seeded, built by worker threads: message `i` depends on `i` alone, so each worker builds whole
 * batches (messages, log rows, the service's extraction of their keys) while the seeding thread writes the batches
 * before them. Batches come out in order, a few built ahead, so the writes go in message order as the service's
 * would (the embedded index numbers transactions within a second in the order written).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CorpusOptions } from './clinical-corpus.js';
import type { SeedBatch, SeedWorkerData, WrittenRange } from './search-seed-batch.js';

interface Pending {
  resolve(batch: SeedBatch): void;
  reject(err: Error): void;
}

/** Batches built ahead per worker: one being built, one waiting to be written. */
const AHEAD_PER_WORKER = 2;

/** Batches of `size` messages from 0 to `total`, in order; the workers stop when the loop over them ends. */
export async function* seedBatches(options: { corpus: CorpusOptions; channelIds: string[]; total: number; size: number; workers?: number }): AsyncGenerator<SeedBatch> {
  const count = Math.max(1, options.workers ?? availableParallelism());
  const data: SeedWorkerData = { corpus: options.corpus, channelIds: options.channelIds };
  const workers: { worker: Worker; pending: Pending[] }[] = [];
  let failed: Error | null = null;
  const fail = (entry: { pending: Pending[] }, err: Error): void => {
    failed ??= err;
    for (const p of entry.pending.splice(0)) p.reject(err);
  };
  for (let i = 0; i < count; i++) {
    const entry = { worker: new Worker(new URL('./search-seed-worker.js', import.meta.url), { workerData: data }), pending: [] as Pending[] };
    entry.worker.on('message', (batch: SeedBatch) => entry.pending.shift()?.resolve(batch));
    entry.worker.on('error', (err) => fail(entry, err));
    entry.worker.on('exit', (code) => fail(entry, new Error(`a seeding worker stopped (exit code ${code})`)));
    workers.push(entry);
  }
  const batches = Math.ceil(options.total / options.size);
  const requested = new Map<number, Promise<SeedBatch>>();
  const request = (k: number): void => {
    if (k >= batches) return;
    const entry = workers[k % count] as (typeof workers)[number];
    const from = k * options.size;
    const batch = failed !== null
      ? Promise.reject(failed)
      : new Promise<SeedBatch>((resolve, reject) => {
          entry.pending.push({ resolve, reject });
          entry.worker.postMessage({ from, to: Math.min(options.total, from + options.size) });
        });
    // Marked handled here: a failure is thrown where the batch is awaited, in order.
    batch.catch(() => undefined);
    requested.set(k, batch);
  };
  try {
    for (let k = 0; k < count * AHEAD_PER_WORKER; k++) request(k);
    for (let k = 0; k < batches; k++) {
      const batch = await (requested.get(k) as Promise<SeedBatch>);
      requested.delete(k);
      request(k + count * AHEAD_PER_WORKER);
      yield batch;
    }
  } finally {
    for (const entry of workers) {
      entry.worker.removeAllListeners('exit');
      await entry.worker.terminate();
    }
  }
}

/**
 * The corpus written to PostgreSQL by the workers themselves, each on its own connections (rows, then the engine's
 * index write), each building its next range while the server works on the last: the server's backends and the
 * builds run side by side. Ranges complete in any order (no table there depends on the order of the writes);
 * `written` is told of each as it completes and may stop the seeding by throwing.
 */
export async function writePostgresInWorkers(options: { corpus: CorpusOptions; channelIds: string[]; total: number; size: number; url: string; workers?: number; written(range: WrittenRange): Promise<void> }): Promise<void> {
  const count = Math.max(1, options.workers ?? availableParallelism());
  const data: SeedWorkerData = { corpus: options.corpus, channelIds: options.channelIds, postgresUrl: options.url };
  const ranges = Math.ceil(options.total / options.size);
  let next = 0;
  let outstanding = 0;
  const workers: Worker[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      let stopped = false;
      const stop = (err: Error): void => {
        if (!stopped) reject(err);
        stopped = true;
      };
      const give = (worker: Worker): void => {
        if (stopped || next >= ranges) {
          if (outstanding === 0 && !stopped) {
            stopped = true;
            resolve();
          }
          return;
        }
        const from = next * options.size;
        next++;
        outstanding++;
        worker.postMessage({ from, to: Math.min(options.total, from + options.size) });
      };
      for (let i = 0; i < count; i++) {
        const worker = new Worker(new URL('./search-seed-worker.js', import.meta.url), { workerData: data });
        workers.push(worker);
        worker.on('message', (range: WrittenRange) => {
          outstanding--;
          if (range.error !== undefined) {
            stop(new Error(`seeding range ${range.from.toLocaleString('en')}: ${range.error}`));
            return;
          }
          options.written(range).then(() => give(worker), stop);
        });
        worker.on('error', stop);
        worker.on('exit', (code) => stop(new Error(`a seeding worker stopped (exit code ${code})`)));
        for (let k = 0; k < AHEAD_PER_WORKER; k++) give(worker);
      }
    });
  } finally {
    for (const worker of workers) {
      worker.removeAllListeners('exit');
      await worker.terminate();
    }
  }
}
