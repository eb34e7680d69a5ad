/**
 * The one-shot copy of an installation from one set of engines into another (issue 20: an embedded data folder into
 * PostgreSQL), written against the storage interfaces only, so the engines on either side are whatever the caller
 * opens. Ids are kept, so every reference between records, transactions and bodies stays true.
 *
 * It refuses to write into a target that holds anything. A copy that preserves ids cannot merge two installations
 * (the first-run administrator of one would clash with the other's), and a resumable copy would need a durable cursor
 * into a log read newest first; an interrupted copy is instead started again into a fresh database, which is cheap
 * to make and leaves no doubt about what the target holds.
 *
 * The transaction log, bodies and audits are streamed in batches; memory holds one batch, never the log.
 */
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { AuditLog, AuditRecord } from './audits.js';
import type { BodyRef, BodySink, SinkOptions } from './bodies/bodies.js';
import { COLLECTION_NAMES } from './collection-specs.js';
import type { CollectionName } from './collection-specs.js';
import type { KeystoreDocumentStore } from './keystore-document.js';
import type { StoredDoc } from './records.js';
import type { Collection, Store } from './store.js';
import { StoreError } from './store.js';
import type { TransactionLog, TransactionRecord } from './transactions.js';

/** Where bodies are read from: what the source's body engine offers. */
export interface BodySource {
  /** Rejects with code ENOENT when the body is gone (removed by a channel's maxBodyAgeDays). */
  openRead(ref: Pick<BodyRef, 'path'>): Promise<Readable>;
}

/** Where bodies are written to: what the target's body engine offers. */
export interface BodyTarget {
  sink(options: SinkOptions): BodySink;
  days(): Promise<string[]>;
}

/** One installation's stores, opened by the caller. */
export interface InstallationStores<B> {
  store: Store;
  keystore: KeystoreDocumentStore;
  transactions: TransactionLog;
  bodies: B;
  audits: AuditLog;
}

/** What was copied. */
export interface MigrationCounts {
  /** Documents copied, by configuration collection. */
  collections: Record<string, number>;
  /** True when the source had a keystore document (it is copied sealed, as it was). */
  keystore: boolean;
  transactions: number;
  bodies: number;
  /** Bodies the source's transactions refer to that the source no longer had (removed by retention). */
  bodiesMissing: number;
  audits: number;
}

export interface MigrationOptions {
  /** Records read and written per step; default 500. */
  batchSize?: number;
  /** Transactions whose bodies are copied at the same time; default 8. */
  concurrency?: number;
  /** Called after each step with the counts so far and what is being copied. */
  onProgress?: (stage: MigrationStage, counts: Readonly<MigrationCounts>) => void;
}

export type MigrationStage = 'configuration' | 'keystore' | 'transactions' | 'audits' | 'done';

/** The target is not empty, or changed while being written: nothing (more) is copied. */
export class MigrationRefusedError extends StoreError {
  override readonly name = 'MigrationRefusedError';
}

/** The jobStates record of the alert job (alerts/alert-job.ts ALERT_JOB_NAME), whose cursor is into the log. */
export const ALERT_JOB_STATE = 'alerts';

const COLLECTIONS = COLLECTION_NAMES;

function collectionOf(store: Store, name: CollectionName): Collection<StoredDoc> {
  return store[name];
}

/** What the target holds already, by name; empty when it is safe to copy into. */
export async function nonEmptyParts(target: InstallationStores<BodyTarget>): Promise<string[]> {
  const found: string[] = [];
  for (const name of COLLECTIONS) {
    const count = await collectionOf(target.store, name).count({});
    if (count > 0) found.push(`${name} (${count} documents)`);
  }
  if ((await target.keystore.version()) !== null) found.push('the keystore');
  if ((await target.transactions.page({}, { limit: 1 })).length > 0) found.push('the transaction log');
  if ((await target.bodies.days()).length > 0) found.push('bodies');
  if ((await target.audits.page({}, { skip: 0, limit: 1 })).length > 0) found.push('audits');
  return found;
}

/**
 * Copies everything from `source` into the empty `target`: the configuration collections, the keystore document,
 * then the transaction log with its bodies, then the audits. Rejects with MigrationRefusedError, writing nothing,
 * when the target is not empty.
 */
export async function migrateInstallation(
  source: InstallationStores<BodySource>,
  target: InstallationStores<BodyTarget>,
  options: MigrationOptions = {},
): Promise<MigrationCounts> {
  const batchSize = options.batchSize ?? 500;
  const concurrency = options.concurrency ?? 8;
  const progress = options.onProgress ?? (() => undefined);
  const counts: MigrationCounts = { collections: {}, keystore: false, transactions: 0, bodies: 0, bodiesMissing: 0, audits: 0 };

  const occupied = await nonEmptyParts(target);
  if (occupied.length > 0) {
    throw new MigrationRefusedError(`The target already holds ${occupied.join(', ')}; nothing was copied. Migrate into an empty database (drop it and create it again), before any Junction instance has started on it.`);
  }

  for (const name of COLLECTIONS) {
    counts.collections[name] = await copyCollection(collectionOf(source.store, name), collectionOf(target.store, name), batchSize);
    progress('configuration', counts);
  }

  const keystore = await source.keystore.read();
  if (keystore !== null) {
    if ((await target.keystore.write(keystore.text, null)) === null) throw new MigrationRefusedError('The target keystore was written by someone else during the migration; start again into an empty database.');
    counts.keystore = true;
  }
  progress('keystore', counts);

  let batch: TransactionRecord[] = [];
  const flush = async (): Promise<void> => {
    await inParallel(batch, concurrency, async (doc) => {
      // Bodies first: a copied transaction never refers to a body the target does not have yet.
      const copied = await copyBodies(doc, source.bodies, target.bodies);
      counts.bodies += copied.bodies;
      counts.bodiesMissing += copied.missing;
      await target.transactions.insert(doc);
    });
    counts.transactions += batch.length;
    batch = [];
    progress('transactions', counts);
  };
  for await (const doc of source.transactions.stream({}, { limit: 0 })) {
    batch.push(doc);
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  await moveAlertCursor(target);

  let audits: AuditRecord[] = [];
  const flushAudits = async (): Promise<void> => {
    const restored = await Promise.all(audits.map((a) => target.audits.restore(a)));
    const duplicate = audits.find((_, i) => restored[i] !== true);
    if (duplicate !== undefined) throw new MigrationRefusedError(`The target already had the audit ${duplicate._id}: it was written by someone else during the migration; start again into an empty database.`);
    counts.audits += audits.length;
    audits = [];
    progress('audits', counts);
  };
  for await (const audit of source.audits.stream({})) {
    audits.push(audit);
    if (audits.length >= batchSize) await flushAudits();
  }
  await flushAudits();
  progress('done', counts);
  return counts;
}

async function copyCollection(from: Collection<StoredDoc>, to: Collection<StoredDoc>, batchSize: number): Promise<number> {
  let copied = 0;
  for (;;) {
    // By id, so pages neither skip nor repeat a document whatever the engine's natural order.
    const docs = await from.find({}, { sort: { _id: 1 }, skip: copied, limit: batchSize });
    for (const doc of docs) await to.insert(doc);
    copied += docs.length;
    if (docs.length < batchSize) return copied;
  }
}

/** Every body a transaction refers to: its request and response, and each route's and orchestration's. */
function bodyRefs(doc: TransactionRecord): BodyRef[] {
  const refs = [doc.request.body, doc.response?.body];
  for (const exchange of [...doc.routes, ...doc.orchestrations]) refs.push(exchange.request.body, exchange.response?.body);
  const byPath = new Map<string, BodyRef>();
  for (const ref of refs) if (ref !== undefined) byPath.set(ref.path, ref);
  return [...byPath.values()];
}

async function copyBodies(doc: TransactionRecord, from: BodySource, to: BodyTarget): Promise<{ bodies: number; missing: number }> {
  let bodies = 0;
  let missing = 0;
  for (const ref of bodyRefs(doc)) {
    const [day = '', channelId = '', bodyId = '', ...rest] = ref.path.split('/');
    if (rest.length > 0 || bodyId === '') throw new StoreError(`transaction ${doc._id}: the body path ${ref.path} is not <day>/<channel>/<body>`);
    let input: Readable;
    try {
      input = await from.openRead(ref);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      missing += 1;
      continue;
    }
    const sink = to.sink({ day, channelId, bodyId, capBytes: Number.MAX_SAFE_INTEGER });
    await pipeline(input, sink.stream);
    const written = await sink.done;
    if (written.path !== ref.path || written.size !== ref.size) {
      throw new StoreError(`transaction ${doc._id}: the body ${ref.path} holds ${written.size} bytes where its transaction records ${ref.size}; the source is damaged there`);
    }
    bodies += 1;
  }
  return { bodies, missing };
}

/**
 * The copy gave every finished transaction a new finished entry in the target (in copy order). The alert job's
 * cursor pointed into the source's entries; it now points past the copied ones, so the history is not alerted on a
 * second time.
 */
async function moveAlertCursor(target: InstallationStores<BodyTarget>): Promise<void> {
  const state = await target.store.jobStates.findOne({ name: ALERT_JOB_STATE });
  if (state === null) return;
  const lastSeq = await target.transactions.lastFinishedSeq();
  await target.store.jobStates.updateById(state._id, { set: { data: { ...state.data, lastSeq } } });
}

/** Runs `work` on every item, at most `limit` at a time; rejects with the first failure once all have settled. */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (err) {
        failures.push(err);
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.length > 0) throw failures[0];
}
