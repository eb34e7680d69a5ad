/**
 * The public views of a transaction: OpenHIM's representations (`bulkrerun`, `simple`, `simpledetails`, `full`,
 * `fulltruncate`) for the transaction routes, and the NDJSON export's line. Bodies are read from the body files and
 * shown only where the caller's access allows them; what may be seen is decided by domain/transactions/transaction-access.ts.
 */
import type { BodyFields, ExchangeView, TransactionRerunView, TransactionView } from '../../contracts/transactions.js';
import type { TransactionAccess } from '../../domain/transactions/transaction-access.js';
import { recordedReason } from '../../domain/transactions/transaction-reason.js';
import { textEncodingOfContentType } from '../../domain/codecs/hl7.js';
import type { Bodies, BodyRef } from '../../storage/bodies/bodies.js';
import type { ExchangeRecord, TransactionRecord, TransactionRequest, TransactionResponse } from '../../storage/transactions.js';
import type { Representation } from '../schemas/transactions.js';

/** Most bytes of one body shown inline by the `full` representation and the export. */
export const INLINE_BODY_BYTES = 1024 * 1024;
/** Most bytes of one body shown inline by the `fulltruncate` representation. */
export const TRUNCATED_BODY_BYTES = 1024;

interface ViewOptions {
  headers: boolean;
  /** Bytes of each body to show, or null to leave bodies out. */
  bodyCap: number | null;
}

/**
 * A body as text for an answer, at most `cap` bytes, in the character set its content type names (an HL7 message's
 * MSH-18 is recorded there); `bodyTruncated` when the stored body was cut or is longer.
 */
async function bodyText(files: Bodies, ref: BodyRef, cap: number, contentType: string | undefined): Promise<BodyFields> {
  try {
    const body = await files.readText(ref, cap, textEncodingOfContentType(contentType));
    return { body, bodyTruncated: ref.truncated || ref.size > cap };
  } catch (err) {
    // Retention (maxBodyAgeDays) may have removed the file while the transaction stays.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { bodyRemoved: true };
    throw err;
  }
}

/**
 * A new object with the fields of `base`, then those of `more`. Not a spread: a spread site that meets many shapes
 * (requests, responses, routes) gives each object it makes a hidden class of its own, and the response serializer,
 * which reads fields by name, then took 7 ms instead of 1 ms for a page of 1000 transactions.
 */
function extend<Base extends object, More extends object>(base: Base, more: More): Base & More {
  return Object.assign({}, base, more);
}

/** A request or response as answered: its date as text, headers and body only when the view shows them. */
type PartView<P extends TransactionRequest | TransactionResponse> = Omit<P, 'body' | 'headers' | 'timestamp'> & BodyFields & { headers?: Record<string, string>; timestamp: string };

async function exchangePart<P extends TransactionRequest | TransactionResponse>(files: Bodies, part: P, options: ViewOptions): Promise<PartView<P>> {
  const { body, headers, timestamp, ...rest } = part;
  const view: PartView<P> = extend(rest, { timestamp: timestamp.toISOString() });
  if (options.headers) view.headers = headers;
  if (body !== undefined && options.bodyCap !== null) Object.assign(view, await bodyText(files, body, options.bodyCap, headers['content-type']));
  return view;
}

async function exchange(files: Bodies, record: ExchangeRecord, options: ViewOptions): Promise<ExchangeView> {
  const { request, response, ...rest } = record;
  const view: ExchangeView = extend(rest, { request: await exchangePart(files, request, options) });
  if (response !== undefined) view.response = await exchangePart(files, response, options);
  return view;
}

async function exchanges(files: Bodies, records: readonly ExchangeRecord[], options: ViewOptions): Promise<ExchangeView[]> {
  const shown: ExchangeView[] = [];
  for (const record of records) shown.push(await exchange(files, record, options));
  return shown;
}

/**
 * The names of the channels and clients a list or an export shows beside their ids (issue 36), looked up once per
 * answer. Given only with transactions the caller may see, so a user who may not read clients still reads the names
 * of those that sent the transactions they may see.
 */
export interface TransactionNames {
  channel(id: string): string | undefined;
  client(id: string): string | undefined;
}

/** One transaction as the representation shows it (OpenHIM projections), bodies only with permission. */
export async function present(files: Bodies, tx: TransactionRecord, representation: Representation | undefined, access: TransactionAccess, names?: TransactionNames): Promise<TransactionView | TransactionRerunView> {
  if (representation === 'bulkrerun') {
    return { _id: tx._id, channelID: tx.channelID, canRerun: tx.canRerun, ...(tx.childIDs === undefined ? {} : { childIDs: tx.childIDs }) };
  }
  return transactionView(files, tx, representation, access, names);
}

/** One transaction in any representation but `bulkrerun`. */
export async function transactionView(files: Bodies, tx: TransactionRecord, representation: Exclude<Representation, 'bulkrerun'> | undefined, access: TransactionAccess, names?: TransactionNames): Promise<TransactionView> {
  const detailed = representation === 'simpledetails' || representation === 'full' || representation === 'fulltruncate';
  const withBodies = access.bodies && (representation === 'full' || representation === 'fulltruncate');
  const options: ViewOptions = {
    headers: detailed,
    bodyCap: withBodies ? (representation === 'fulltruncate' ? TRUNCATED_BODY_BYTES : INLINE_BODY_BYTES) : null,
  };
  // statusIfInterrupted is start-up recovery's note for a transaction answered while other routes still run.
  const { request, response, routes, orchestrations, statusIfInterrupted: _recovery, ...rest } = tx;
  const view: TransactionView = extend(rest, { request: await exchangePart(files, request, options) });
  if (response !== undefined) view.response = await exchangePart(files, response, options);
  // A transaction stored before reasons were decided at completion says why from its error and status (no body read).
  if (view.reason === undefined) {
    const reason = recordedReason(tx);
    if (reason !== undefined) view.reason = reason;
  }
  if (names !== undefined) {
    const channelName = names.channel(tx.channelID);
    if (channelName !== undefined) view.channelName = channelName;
    const clientName = tx.clientID === undefined ? undefined : names.client(tx.clientID);
    if (clientName !== undefined) view.clientName = clientName;
  }
  if (detailed) {
    view.routes = await exchanges(files, routes, options);
    view.orchestrations = await exchanges(files, orchestrations, options);
  }
  return view;
}

/** One transaction as a line of the NDJSON export: the simple view, with bodies when asked (the route checks permission). */
export async function exported(files: Bodies, tx: TransactionRecord, access: TransactionAccess, withBodies: boolean, names?: TransactionNames): Promise<TransactionView> {
  const options: ViewOptions = { headers: false, bodyCap: withBodies ? INLINE_BODY_BYTES : null };
  const view = await transactionView(files, tx, undefined, access, names);
  if (withBodies) {
    view.request = await exchangePart(files, tx.request, options);
    if (tx.response !== undefined) view.response = await exchangePart(files, tx.response, options);
  }
  // What a mediator did is part of the record being exported, with bodies under the same rule as the rest.
  if (tx.orchestrations.length > 0) view.orchestrations = await exchanges(files, tx.orchestrations, options);
  return view;
}
