/**
 * The public views of a transaction: OpenHIM's representations (`bulkrerun`, `simple`, `simpledetails`, `full`,
 * `fulltruncate`) for the transaction routes, and the NDJSON export's line. Bodies are read from the body files and
 * shown only where the caller's access allows them; what may be seen is decided by domain/transaction-access.ts.
 */
import type { TransactionAccess } from '../../domain/transaction-access.js';
import type { BodyFiles, BodyRef } from '../../storage/bodies/body-files.js';
import type { ExchangeRecord, TransactionRecord, TransactionRequest, TransactionResponse } from '../../storage/transactions.js';
import type { Representation } from '../schemas/transactions.js';

/** Most bytes of one body shown inline by the `full` representation and the export. */
export const INLINE_BODY_BYTES = 1024 * 1024;
/** Most bytes of one body shown inline by the `fulltruncate` representation. */
export const TRUNCATED_BODY_BYTES = 1024;

export type View = Record<string, unknown>;

interface ViewOptions {
  headers: boolean;
  /** Bytes of each body to show, or null to leave bodies out. */
  bodyCap: number | null;
}

/** A body as text for an answer, at most `cap` bytes; `bodyTruncated` when the stored body was cut or is longer. */
async function bodyText(files: BodyFiles, ref: BodyRef, cap: number): Promise<View> {
  try {
    const body = await files.readText(ref, cap);
    return { body, bodyTruncated: ref.truncated || ref.size > cap };
  } catch (err) {
    // Retention (maxBodyAgeDays) may have removed the file while the transaction stays.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { bodyRemoved: true };
    throw err;
  }
}

async function exchangePart(files: BodyFiles, part: TransactionRequest | TransactionResponse, options: ViewOptions): Promise<View> {
  const { body, headers, ...rest } = part;
  const view: View = { ...rest };
  if (options.headers) view.headers = headers;
  if (body !== undefined && options.bodyCap !== null) Object.assign(view, await bodyText(files, body, options.bodyCap));
  return view;
}

async function exchange(files: BodyFiles, record: ExchangeRecord, options: ViewOptions): Promise<View> {
  const { request, response, ...rest } = record;
  const view: View = { ...rest, request: await exchangePart(files, request, options) };
  if (response !== undefined) view.response = await exchangePart(files, response, options);
  return view;
}

async function exchanges(files: BodyFiles, records: readonly ExchangeRecord[], options: ViewOptions): Promise<View[]> {
  const shown: View[] = [];
  for (const record of records) shown.push(await exchange(files, record, options));
  return shown;
}

/** One transaction as the representation shows it (OpenHIM projections), bodies only with permission. */
export async function present(files: BodyFiles, tx: TransactionRecord, representation: Representation | undefined, access: TransactionAccess): Promise<View> {
  if (representation === 'bulkrerun') {
    return { _id: tx._id, channelID: tx.channelID, canRerun: tx.canRerun, ...(tx.childIDs === undefined ? {} : { childIDs: tx.childIDs }) };
  }
  const detailed = representation === 'simpledetails' || representation === 'full' || representation === 'fulltruncate';
  const withBodies = access.bodies && (representation === 'full' || representation === 'fulltruncate');
  const options: ViewOptions = {
    headers: detailed,
    bodyCap: withBodies ? (representation === 'fulltruncate' ? TRUNCATED_BODY_BYTES : INLINE_BODY_BYTES) : null,
  };
  // statusIfInterrupted is start-up recovery's note for a transaction answered while other routes still run.
  const { request, response, routes, orchestrations, statusIfInterrupted: _recovery, ...rest } = tx;
  const view: View = { ...rest, request: await exchangePart(files, request, options) };
  if (response !== undefined) view.response = await exchangePart(files, response, options);
  if (detailed) {
    view.routes = await exchanges(files, routes, options);
    view.orchestrations = await exchanges(files, orchestrations, options);
  }
  return view;
}

/** One transaction as a line of the NDJSON export: the simple view, with bodies when asked (the route checks permission). */
export async function exported(files: BodyFiles, tx: TransactionRecord, access: TransactionAccess, withBodies: boolean): Promise<View> {
  const options: ViewOptions = { headers: false, bodyCap: withBodies ? INLINE_BODY_BYTES : null };
  const view = await present(files, tx, undefined, access);
  if (withBodies) {
    view.request = await exchangePart(files, tx.request, options);
    if (tx.response !== undefined) view.response = await exchangePart(files, tx.response, options);
  }
  // What a mediator did is part of the record being exported, with bodies under the same rule as the rest.
  if (tx.orchestrations.length > 0) view.orchestrations = await exchanges(files, tx.orchestrations, options);
  return view;
}
