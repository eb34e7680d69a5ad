/**
 * Transactions: `GET/POST /transactions`, `GET /transactions/clients/:clientId`, `GET/PUT/DELETE /transactions/:id`
 * and `GET /transactions/export`. Users see transactions of the channels whose txViewAcl or txViewFullAcl names one of
 * their groups, and bodies only through txViewFullAcl; admins see everything, and only admins record, change and
 * delete transactions (transactions/writer.ts).
 */
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { isAdmin } from '../../domain/access/permissions.js';
import { forbiddenChannels, parseFilters, parseTransactionQuery, restrictToChannels, transactionAccess, viewableChannels, withSearch } from '../../domain/transactions/transaction-access.js';
import { textSearchChannels } from '../../domain/transactions/transaction-search.js';
import { countMatches, keyMatches, refuseGarbledSearch, refuseSearchWhenOff, searchIndexStatus } from '../transaction-search.js';
import type { TransactionSearch } from '../transaction-search.js';
import type { TransactionAccess } from '../../domain/transactions/transaction-access.js';
import { invalidInput } from '../../refusals.js';
import type { ChannelCatalogue } from '../../channels/catalogue.js';
import type { LiveEvents } from '../../events/live.js';
import { TransactionWriter } from '../../transactions/writer.js';
import type { Bodies } from '../../storage/bodies/bodies.js';
import type { ClientRecord, UserRecord } from '../../storage/records.js';
import type { TransactionFilter, TransactionLog, TransactionRecord } from '../../storage/transactions.js';
import { currentUser } from '../auth/hook.js';
import { requireAdmin } from '../guards.js';
import { exported, present } from '../views/transactions.js';
import type { TransactionNames } from '../views/transactions.js';
import type { ClientAccounts } from '../../accounts/clients.js';
import type { TransactionCount, TransactionRerunView, TransactionView } from '../../contracts/transactions.js';
import type { SchemaWarmup } from '../schema-warmup.js';
import { CSV_HEADER, csvRow } from '../views/transactions-csv.js';
import { MessageAnswerSchema, NoQuery } from '../schemas/common.js';
import {
  ClientTransactionParams,
  ExportQuery,
  TransactionAnswer,
  TransactionCreateBody,
  TransactionGetQuery,
  TransactionListAnswer,
  TransactionListQuery,
  TransactionParams,
  TransactionRerunViewSchema,
  SearchIndexStatusSchema,
  TransactionUpdateBody,
  TransactionViewSchema,
} from '../schemas/transactions.js';

export interface TransactionRoutesDeps {
  transactions: TransactionLog;
  bodies: Bodies;
  /** Where the channels' ACLs are read, to scope what a user may see. */
  channels: ChannelCatalogue;
  /** Where API-written transactions are announced, as proxied ones are. */
  events: LiveEvents;
  /** The router's body limit (router.maxBodyBytes), which bodies written through the API must keep to. */
  transactionBodyCapBytes: number;
  /** The background work after start, which here also reads the newest page once (see below). */
  warmup?: SchemaWarmup;
  /** Where the names of the clients on the transactions answered are read (every caller may read those, issue 36). */
  clients?: Pick<ClientAccounts, 'list'>;
  /** The clinical search (issue 37): whether it is on and the index beside the log. */
  search: TransactionSearch;
}

/** Characters of export lines gathered into one chunk of the answer. */
const EXPORT_CHUNK_CHARS = 64 * 1024;
/** Rows of the newest page read once after start: the console's first list asks for 20. */
const WARM_PAGE = 20;
/** Pages longer than the longest page the console asks for are streamed rather than built in memory. */
const STREAM_ABOVE = 1000;
/** Rows of a streamed list whose matching keys are read together. */
const MATCH_BATCH = 100;
const ALL_ACCESS: TransactionAccess = { view: true, bodies: true };
const NO_ACCESS: TransactionAccess = { view: false, bodies: false };

/** The channels a user may see: every channel, or the listed ones with what may be seen of each. */
type Scope = 'all' | Map<string, TransactionAccess>;

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

export function transactionRoutes(deps: TransactionRoutesDeps): FastifyPluginAsyncTypebox {
  const { transactions, bodies, channels } = deps;
  const writer = new TransactionWriter({ log: transactions, bodies, findChannel: (id) => channels.find(id), events: deps.events, bodyCapBytes: deps.transactionBodyCapBytes });
  let listed = false;

  async function scopeOf(user: UserRecord): Promise<Scope> {
    if (isAdmin(user)) return 'all';
    // Deleted channels are included: their transactions keep their history and their ACLs.
    return viewableChannels(user, await channels.list(true));
  }

  /**
   * The channel and client names of an answer, read once for it. Only the names of the transactions answered are
   * shown, so a non-admin reads the names of the clients on transactions they may see, and no others.
   */
  async function names(): Promise<TransactionNames> {
    const [allChannels, allClients] = await Promise.all([channels.list(true), deps.clients?.list() ?? Promise.resolve<ClientRecord[]>([])]);
    const channelNames = new Map(allChannels.map((c) => [c._id, c.name]));
    const clientNames = new Map(allClients.map((c) => [c._id, c.name === '' ? c.clientID : c.name]));
    return { channel: (id) => channelNames.get(id), client: (id) => clientNames.get(id) };
  }

  function accessIn(scope: Scope, channelID: string): TransactionAccess {
    return scope === 'all' ? ALL_ACCESS : (scope.get(channelID) ?? NO_ACCESS);
  }

  /**
   * The filter narrowed to the user's channels; null when that leaves nothing to find. Naming a channel the user may
   * not view is refused (403), as in OpenHIM, rather than answered with nothing.
   */
  function scoped(filter: TransactionFilter, scope: Scope): TransactionFilter | null {
    if (scope === 'all') return filter;
    const forbidden = forbiddenChannels(filter, scope.keys());
    if (forbidden.length > 0) throw new AppError('FORBIDDEN', `Forbidden: you may not view the transactions of channel ${forbidden.join(', ')}`);
    // A text search looks only into bodies the user may read; with none, it finds nothing (and says nothing of why).
    const narrowed = restrictToChannels(filter, filter.text === undefined ? scope.keys() : textSearchChannels(scope));
    return narrowed.channelID !== undefined && narrowed.channelID.length === 0 ? null : narrowed;
  }

  /** Adds the keys that matched to a page's rows, when the filter searched by key. */
  async function withMatches(filter: TransactionFilter | null, page: TransactionView[]): Promise<TransactionView[]> {
    if (filter?.keys === undefined) return page;
    const matches = await keyMatches(filter, page.map((tx) => tx._id), deps.search);
    for (const view of page) {
      const match = matches.get(view._id);
      if (match !== undefined) view.match = match;
    }
    return page;
  }

  /**
   * `GET /transactions` and the client's list: a page built in memory, or (for `filterLimit=0` and pages above
   * STREAM_ABOVE) a JSON array written as rows are read from the log, STREAM_BATCH at a time, so memory stays flat
   * however long the list. Every row gets the same permissions and representation either way.
   */
  async function list(request: FastifyRequest, reply: FastifyReply, query: TransactionListQuery, forced: TransactionFilter = {}): Promise<TransactionView[] | TransactionCount | FastifyReply> {
    listed = true;
    refuseGarbledSearch(request.url);
    const parsed = parseTransactionQuery(query);
    if (!parsed.ok) throw invalidInput(parsed.problems);
    const scope = await scopeOf(currentUser(request));
    const wanted: TransactionFilter = { ...parsed.value.filter, ...forced };
    refuseSearchWhenOff(wanted, deps.search);
    const filter = scoped(wanted, scope);
    const { limit, skip } = parsed.value;
    const representation = query.filterRepresentation;
    let named: Promise<TransactionNames> | undefined;
    const show = async (tx: TransactionRecord) => present(bodies, tx, representation, accessIn(scope, tx.channelID), representation === 'bulkrerun' ? undefined : await (named ??= names()));
    if (limit !== 0 && limit <= STREAM_ABOVE) {
      const page = filter === null ? [] : await transactions.page(filter, { limit, skip });
      const shown: (TransactionView | TransactionRerunView)[] = [];
      for (const tx of page) shown.push(await show(tx));
      // The page first, then its total: a text search's count is bounded in time (search.countWithinMs), and the
      // rows already read are a floor for an estimate.
      if (representation === 'bulkrerun') return { ...(await counted(filter, skip + page.length)), transactions: shown };
      return await withMatches(filter, shown as TransactionView[]);
    }
    // The page's own response schema, one row at a time: the serializer still drops what the schema does not list.
    const row: (view: Record<string, unknown>) => string = reply.compileSerializationSchema((representation === 'bulkrerun' ? TransactionRerunViewSchema : TransactionViewSchema) as unknown as Record<string, unknown>);
    const total = representation === 'bulkrerun' ? await counted(filter) : null;
    const head = total === null ? '[' : `{"count":${total.count},${total.estimated ? '"estimated":true,' : ''}"transactions":[`;
    async function* chunks(): AsyncGenerator<string> {
      yield head;
      if (filter !== null) {
        let separator = '';
        // Rows are shown MATCH_BATCH at a time, so the keys that matched are read once per batch, not once per row.
        let batch: TransactionView[] = [];
        const flush = async function* (): AsyncGenerator<string> {
          for (const view of representation === 'bulkrerun' ? batch : await withMatches(filter, batch)) {
            yield separator + row(view as unknown as Record<string, unknown>);
            separator = ',';
          }
          batch = [];
        };
        for await (const tx of transactions.stream(filter, { limit, skip })) {
          batch.push((await show(tx)) as TransactionView);
          if (batch.length >= MATCH_BATCH) yield* flush();
        }
        yield* flush();
      }
      yield representation === 'bulkrerun' ? ']}' : ']';
    }
    return reply.type('application/json; charset=utf-8').send(Readable.from(chunks(), { objectMode: false }));
  }

  /** The count of the bulkrerun representation: nothing to count when the user may see none of it. */
  async function counted(filter: TransactionFilter | null, atLeast = 0): Promise<{ count: number; estimated?: true }> {
    if (filter === null) return { count: 0 };
    const total = await countMatches(transactions, filter, undefined, { withinMs: deps.search.countWithinMs, atLeast });
    return total.estimated ? { count: total.count, estimated: true } : { count: total.count };
  }

  /** The transaction if the user may see it: 403 when not (and, for non-admins, for unknown ids too), 404 when unknown. */
  async function visible(user: UserRecord, id: string): Promise<{ tx: TransactionRecord; access: TransactionAccess }> {
    const tx = await transactions.get(id);
    if (isAdmin(user)) {
      if (tx === null) throw new AppError('NOT_FOUND', `No transaction with id ${id}`);
      return { tx, access: ALL_ACCESS };
    }
    const channel = tx === null ? null : await channels.find(tx.channelID);
    const access = channel === null ? NO_ACCESS : transactionAccess(user, channel);
    if (tx === null || !access.view) throw new AppError('FORBIDDEN', 'You are not allowed to view this transaction');
    return { tx, access };
  }

  return async (app) => {
    // The newest page, read once in the background after start: on a log of many GB whose file is not in the page
    // cache (after a reboot), its index and row pages otherwise come from disk for the first user who opens the console,
    // 30–100 ms at 10,000,000 transactions (issue 19). Queued when the routes are ready, so after the list's own schema
    // compiles, which the first page needs more; skipped when a list was already asked for; what it reads is discarded.
    const warmup = deps.warmup;
    if (warmup !== undefined) {
      app.addHook('onReady', async () => {
        warmup.add('/transactions', () => {
          if (!listed) transactions.page({}, { limit: WARM_PAGE }).catch(() => undefined);
        });
      });
    }

    app.get('/transactions', { schema: { querystring: TransactionListQuery, response: { 200: TransactionListAnswer } } }, async (request, reply) => list(request, reply, request.query));

    app.get('/transactions/clients/:clientId', { schema: { params: ClientTransactionParams, querystring: TransactionListQuery, response: { 200: TransactionListAnswer } } }, async (request, reply) =>
      list(request, reply, request.query, { clientID: request.params.clientId }),
    );

    app.get('/transactions/export', { schema: { querystring: ExportQuery } }, async (request, reply) => {
      const user = currentUser(request);
      refuseGarbledSearch(request.url);
      const parsed = parseFilters(request.query.filters);
      if (!parsed.ok) throw invalidInput(parsed.problems);
      const searched = withSearch(parsed.filter, request.query, 'querystring');
      if (!searched.ok) throw invalidInput(searched.problems);
      refuseSearchWhenOff(searched.filter, deps.search);
      const format = request.query.format ?? 'ndjson';
      const withBodies = request.query.bodies === true;
      const scope = await scopeOf(user);
      const filter = scoped(searched.filter, scope);
      if (withBodies && scope !== 'all' && filter !== null) {
        const included = filter.channelID ?? [];
        if (included.some((id) => scope.get(id)?.bodies !== true)) {
          throw new AppError('FORBIDDEN', 'Bodies can be exported only for channels whose txViewFullAcl names one of your groups; narrow filters.channelID to those channels');
        }
      }
      const known = filter === null ? undefined : await names();
      async function* lines(): AsyncGenerator<string> {
        // Lines are sent EXPORT_CHUNK_CHARS at a time: one chunk per line cost more in socket writes than building
        // the lines (issue 19), and the chunk bounds what is held.
        let chunk = format === 'csv' ? CSV_HEADER : '';
        if (filter !== null) {
          for await (const tx of transactions.stream(filter)) {
            if (format === 'csv') chunk += csvRow(tx, known);
            else chunk += `${JSON.stringify(await exported(bodies, tx, accessIn(scope, tx.channelID), withBodies, known))}\n`;
            if (chunk.length >= EXPORT_CHUNK_CHARS) {
              yield chunk;
              chunk = '';
            }
          }
        }
        if (chunk !== '') yield chunk;
      }
      const extension = format === 'csv' ? 'csv' : 'ndjson';
      void reply
        .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="transactions-${stamp()}.${extension}"`);
      request.log.info({ by: user.email, format, bodies: withBodies }, 'transactions exported');
      return reply.send(Readable.from(lines(), { objectMode: false }));
    });

    app.get('/transactions/search-index', { schema: { querystring: NoQuery, response: { 200: SearchIndexStatusSchema } } }, async (request) => {
      requireAdmin(request, 'see the search index');
      return await searchIndexStatus(transactions, deps.search);
    });

    app.get('/transactions/:id', { schema: { params: TransactionParams, querystring: TransactionGetQuery, response: { 200: TransactionAnswer } } }, async (request) => {
      const user = currentUser(request);
      const { tx, access } = await visible(user, request.params.id);
      return present(bodies, tx, request.query.filterRepresentation ?? 'full', access, await names());
    });

    app.post('/transactions', { schema: { querystring: TransactionGetQuery, body: TransactionCreateBody, response: { 201: TransactionAnswer } } }, async (request, reply) => {
      const user = requireAdmin(request, 'record transactions');
      const created = await writer.create(request.body);
      request.log.info({ transaction: created._id, by: user.email }, 'transaction recorded through the API');
      return reply.code(201).send(await present(bodies, created, request.query.filterRepresentation ?? 'full', ALL_ACCESS));
    });

    app.put('/transactions/:id', { schema: { params: TransactionParams, querystring: TransactionGetQuery, body: TransactionUpdateBody, response: { 200: TransactionAnswer } } }, async (request) => {
      const user = requireAdmin(request, 'change transactions');
      const updated = await writer.update(request.params.id, request.body);
      if (updated === null) throw new AppError('NOT_FOUND', `No transaction with id ${request.params.id}`);
      request.log.info({ transaction: updated._id, by: user.email, fields: Object.keys(request.body) }, 'transaction updated');
      return present(bodies, updated, request.query.filterRepresentation ?? 'full', ALL_ACCESS);
    });

    app.delete('/transactions/:id', { schema: { params: TransactionParams, querystring: NoQuery, response: { 200: MessageAnswerSchema } } }, async (request) => {
      const user = requireAdmin(request, 'delete transactions');
      if (!(await transactions.remove(request.params.id))) throw new AppError('NOT_FOUND', `No transaction with id ${request.params.id}`);
      request.log.info({ transaction: request.params.id, by: user.email }, 'transaction deleted');
      return { message: `Transaction ${request.params.id} deleted` };
    });
  };
}
