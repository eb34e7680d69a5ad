/**
 * The one-time move of audits from the NeDB datafile earlier versions kept (`audits.db` in the data folder) into the
 * audit log. NeDB appends: one JSON document per line, dates as `{"$$date": ms}`, a deletion as
 * `{"$$deleted": true, "_id": ...}`, and a later line replacing an earlier one with the same `_id`. So the file is read
 * twice, line by line: first to find each live document's last line, then to restore those lines under their own ids.
 * Nothing is held but the ids. Afterwards the file is renamed `audits.db.imported`, so it is never imported twice; an
 * import cut short leaves it in place, and the next start restores what is missing (an id already stored is skipped).
 */
import { createReadStream } from 'node:fs';
import { access, rename } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import type { AuditLog, AuditRecord } from './audits.js';

/** Audits restored per group of writes awaited together (each group commits in a few SQLite transactions). */
const GROUP = 1000;

export interface NedbAuditImport {
  /** Live documents restored. */
  imported: number;
  /** Live documents whose id the audit log already held (an earlier, interrupted import). */
  alreadyStored: number;
  /** Lines that were not JSON documents, or documents that are not audits: logged and skipped. */
  skipped: number;
}

/**
 * Imports `<dataDir>/audits.db` (or the `audits.db~` an interrupted NeDB compaction left) into `audits`, then renames
 * it. Resolves null when there is no such file. A damaged line is logged and skipped; a failing write rejects and
 * leaves the file where it is.
 */
export async function importNedbAudits(options: { file: string; audits: AuditLog; logger: Logger }): Promise<NedbAuditImport | null> {
  const { audits, logger } = options;
  const file = (await exists(options.file)) ? options.file : (await exists(`${options.file}~`)) ? `${options.file}~` : null;
  if (file === null) return null;
  logger.info({ file }, 'importing the audits of an earlier version into the audit log');
  const lastLine = new Map<string, number>();
  let skipped = 0;
  await eachLine(file, (line, n) => {
    const doc = parseLine(line);
    if (doc === null) {
      skipped++;
      logger.warn({ file, line: n }, 'an audit line is not a JSON document; it is skipped');
      return;
    }
    if ('$$indexCreated' in doc || '$$indexRemoved' in doc) return;
    const id = doc._id;
    if (typeof id !== 'string' || id === '') {
      skipped++;
      logger.warn({ file, line: n }, 'an audit line has no _id; it is skipped');
      return;
    }
    if (doc.$$deleted === true) lastLine.delete(id);
    else lastLine.set(id, n);
  });
  const summary: NedbAuditImport = { imported: 0, alreadyStored: 0, skipped };
  let pending: Promise<boolean>[] = [];
  const settle = async (): Promise<void> => {
    for (const stored of await Promise.all(pending)) {
      if (stored) summary.imported++;
      else summary.alreadyStored++;
    }
    pending = [];
  };
  await eachLine(file, async (line, n) => {
    const doc = parseLine(line);
    if (doc === null || typeof doc._id !== 'string' || lastLine.get(doc._id) !== n) return;
    const record = toAuditRecord(revive(doc) as Record<string, unknown>);
    if (record === null) {
      summary.skipped++;
      logger.warn({ file, line: n, id: doc._id }, 'an audit has no valid eventIdentification.eventDateTime; it is skipped');
      return;
    }
    pending.push(audits.restore(record));
    if (pending.length >= GROUP) await settle();
  });
  await settle();
  await rename(file, `${options.file}.imported`);
  logger.info({ file, ...summary }, 'audits of an earlier version imported; the old file is kept as audits.db.imported');
  return summary;
}

/** A NeDB audit document as the audit log's record, or null when it has no usable event time. */
export function toAuditRecord(doc: Record<string, unknown>): AuditRecord | null {
  const event = doc.eventIdentification;
  if (typeof event !== 'object' || event === null) return null;
  const time = (event as { eventDateTime?: unknown }).eventDateTime;
  const eventDateTime = time instanceof Date ? time : typeof time === 'string' ? new Date(time) : null;
  if (eventDateTime === null || Number.isNaN(eventDateTime.getTime())) return null;
  const { __v: _version, ...rest } = doc;
  const participants = Array.isArray(doc.activeParticipant) ? (doc.activeParticipant as unknown[]) : [];
  return {
    ...(rest as unknown as AuditRecord),
    eventIdentification: { ...(event as AuditRecord['eventIdentification']), eventDateTime },
    // Older records kept userIsRequestor as a boolean; OpenHIM's model and the API answer it as text.
    activeParticipant: participants.map((p) => {
      if (typeof p !== 'object' || p === null) return {};
      const participant = { ...(p as Record<string, unknown>) };
      if (typeof participant.userIsRequestor === 'boolean') participant.userIsRequestor = String(participant.userIsRequestor);
      return participant;
    }),
    participantObjectIdentification: Array.isArray(doc.participantObjectIdentification) ? (doc.participantObjectIdentification as AuditRecord['participantObjectIdentification']) : [],
  };
}

/** Turns NeDB's `{"$$date": ms}` back into Dates. */
function revive(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revive);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  if (typeof record.$$date === 'number' && Object.keys(record).length === 1) return new Date(record.$$date);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(record)) copy[key] = revive(record[key]);
  return copy;
}

function parseLine(line: string): Record<string, unknown> | null {
  try {
    const parsed = JSON.parse(line) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Calls `visit` with each non-empty line and its number (from 1), one at a time. */
async function eachLine(file: string, visit: (line: string, n: number) => void | Promise<void>): Promise<void> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    await visit(line, n);
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
