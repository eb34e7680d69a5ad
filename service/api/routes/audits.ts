/**
 * The audit repository's API (OPENHIM-FACTS 5.5): `POST /audits`, `GET /audits`, `GET /audits/:auditId`,
 * `GET /audits-filter-options` and `GET /audits/export`. Admins only: OpenHIM's audit-trail permissions are its admin
 * checks, and the audit log names patients and users. Each request that reads audit content (a whole record, a list in
 * `simpledetails` or `full`, an export) writes one Audit Log Used event naming the user and how many records were read,
 * not one per record as OpenHIM does. The default list view (no participants, no raw message) is not audited: the
 * console polls it, and each poll would add a record to the list it shows.
 */
import { hostname } from 'node:os';
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { invalidInput } from '../../refusals.js';
import { parseAuditFilters, parseAuditQuery } from '../../domain/operations/audit-filters.js';
import type { AuditRecorder } from '../../audit/recorder.js';
import { OUTCOME_MAJOR_FAILURE, OUTCOME_MINOR_FAILURE, OUTCOME_SUCCESS } from '../../audit/events.js';
import type { AuditLog, NewAudit } from '../../storage/audits.js';
import type { UserRecord } from '../../storage/records.js';
import { requireAdmin } from '../guards.js';
import { NoQuery } from '../schemas/common.js';
import { filterOptions, presentAudit, wholeAudit } from '../views/audits.js';
import { AuditCreateBody, AuditExportQuery, AuditFilterOptionsSchema, AuditListAnswer, AuditListQuery, AuditParams, AuditSchema } from '../schemas/audits.js';

export interface AuditRoutesDeps {
  /** The audit repository. */
  audits: AuditLog;
  /** Where the Audit Log Used events go. */
  audit: AuditRecorder;
}

const WORK = 'view or add audits';
/** Most ids an Audit Log Used event lists; beyond it, the count alone. */
const MAX_IDS_NAMED = 100;
const ID = /^[0-9a-f]{24}$/i;
const MAX_URI = 2000;

type Outcome = typeof OUTCOME_SUCCESS | typeof OUTCOME_MINOR_FAILURE | typeof OUTCOME_MAJOR_FAILURE;

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

/** The record as stored: its time a Date, the lists present (OpenHIM keeps them as arrays, empty or not). */
function newAudit(body: AuditCreateBody): NewAudit {
  const { eventIdentification, activeParticipant, participantObjectIdentification, ...rest } = body;
  return {
    ...rest,
    eventIdentification: { ...eventIdentification, eventDateTime: new Date(eventIdentification.eventDateTime) },
    activeParticipant: activeParticipant ?? [],
    participantObjectIdentification: participantObjectIdentification ?? [],
  };
}

export function auditRoutes(deps: AuditRoutesDeps): FastifyPluginAsyncTypebox {
  const { audits, audit } = deps;

  /** The request as a URI naming this host (not the caller's Host header), for the Audit Log Used object. */
  function uriOf(request: FastifyRequest): string {
    const port = request.socket.localPort;
    const uri = `${request.protocol}://${hostname()}${port === undefined ? '' : `:${port}`}${request.url}`;
    // A query's filters may run to 10,000 characters; the event keeps enough to tell which query it was.
    return uri.length <= MAX_URI ? uri : `${uri.slice(0, MAX_URI)}…`;
  }

  function used(request: FastifyRequest, user: UserRecord, outcome: Outcome, read: { count?: number; ids?: readonly string[] } = {}): Promise<void> {
    const ids = read.ids !== undefined && read.ids.length <= MAX_IDS_NAMED ? { ids: read.ids } : {};
    return audit.auditLogUsed({ user: { email: user.email, groups: user.groups }, address: request.ip, uri: uriOf(request), outcome, ...(read.count === undefined ? {} : { count: read.count }), ...ids });
  }

  return async (app) => {
    app.post('/audits', { schema: { querystring: NoQuery, body: AuditCreateBody } }, async (request, reply) => {
      const user = requireAdmin(request, WORK);
      const stored = await audits.add(newAudit(request.body));
      request.log.info({ audit: stored._id, by: user.email }, 'audit added through the API');
      return reply.code(201).type('text/plain; charset=utf-8').send('Audit successfully created');
    });

    app.get('/audits', { schema: { querystring: AuditListQuery, response: { 200: AuditListAnswer } } }, async (request) => {
      const user = requireAdmin(request, WORK);
      const parsed = parseAuditQuery(request.query);
      if (!parsed.ok) throw invalidInput(parsed.problems);
      const representation = request.query.filterRepresentation ?? 'default';
      const details = representation !== 'default';
      const { filter, limit, skip } = parsed.value;
      try {
        const page = await audits.page(filter, { limit, skip });
        if (details) await used(request, user, OUTCOME_SUCCESS, { count: page.length, ids: page.map((a) => a._id) });
        return page.map((a) => presentAudit(a, representation));
      } catch (err) {
        if (details) await used(request, user, OUTCOME_MAJOR_FAILURE);
        throw err;
      }
    });

    app.get('/audits/export', { schema: { querystring: AuditExportQuery } }, async (request, reply) => {
      const user = requireAdmin(request, WORK);
      const parsed = parseAuditFilters(request.query.filters);
      if (!parsed.ok) throw invalidInput(parsed.problems);
      const filter = parsed.value;
      // Audited when the stream ends, with the number of records written (or as failed, when it broke off).
      async function* lines(): AsyncGenerator<string> {
        let count = 0;
        let outcome: Outcome = OUTCOME_MAJOR_FAILURE;
        try {
          for await (const record of audits.stream(filter)) {
            yield `${JSON.stringify(wholeAudit(record))}\n`;
            count += 1;
          }
          outcome = OUTCOME_SUCCESS;
        } finally {
          await used(request, user, outcome, { count });
        }
      }
      void reply.type('application/x-ndjson; charset=utf-8').header('content-disposition', `attachment; filename="audits-${stamp()}.ndjson"`);
      request.log.info({ by: user.email }, 'audits exported');
      return reply.send(Readable.from(lines(), { objectMode: false }));
    });

    app.get('/audits/:auditId', { schema: { params: AuditParams, querystring: NoQuery, response: { 200: AuditSchema } } }, async (request) => {
      const user = requireAdmin(request, WORK);
      const id = request.params.auditId;
      if (!ID.test(id)) throw invalidInput([{ path: 'params.auditId', message: 'must be an audit id: 24 hexadecimal digits' }]);
      let record;
      try {
        record = await audits.get(id.toLowerCase());
      } catch (err) {
        await used(request, user, OUTCOME_MAJOR_FAILURE);
        throw err;
      }
      if (record === null) {
        await used(request, user, OUTCOME_MINOR_FAILURE);
        throw new AppError('NOT_FOUND', `Could not find audits record with ID: ${id}`);
      }
      await used(request, user, OUTCOME_SUCCESS, { count: 1, ids: [record._id] });
      return wholeAudit(record);
    });

    app.get('/audits-filter-options', { schema: { querystring: NoQuery, response: { 200: AuditFilterOptionsSchema } } }, async (request) => {
      requireAdmin(request, WORK);
      return filterOptions(await audits.codesSeen());
    });
  };
}
