/**
 * The audit parsers: the worker thread (the compiled parse-worker.js, as the built service runs it) answers exactly
 * what parsing inline answers, and a worker that dies or never starts costs no message: its batches are parsed inline.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerAuditParser, createAuditParser, inlineAuditParser } from '../../service/audit/parsers.js';
import type { ParsedMessage } from '../../service/audit/parsers.js';
import { decodeEncoded, encodeAudit } from '../../service/storage/audit-rows.js';
import type { EncodedAudit } from '../../service/storage/audit-rows.js';
import type { NewAudit } from '../../service/storage/audits.js';
import { memoryLogger } from '../helpers/logger.js';
import { rfc5424, sample } from './samples.js';

// Built by the global setup from the current sources.
const WORKER = resolve('dist/service/audit/parse-worker.js');

describe('audit parsers', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0)) await step();
  });

  const texts = [rfc5424(sample('rfc3881-login')), rfc5424(sample('dicom-app-start')), 'not an audit at all', sample('dicom-pix-query')];
  const times = texts.map((_, i) => Date.UTC(2026, 10, 24, 10, 0, i));

  /** Each result as the audit it stands for, whichever form it came in. */
  const audits = (results: ParsedMessage[]): { audit: NewAudit; problem?: string }[] =>
    results.map((r) => ({ audit: 'encoded' in r ? decodeEncoded(r.encoded) : r.audit, ...(r.problem === undefined ? {} : { problem: r.problem }) }));

  it('parses and encodes in the worker thread exactly what parsing inline gives, dates included', async () => {
    const { logger } = memoryLogger();
    const parser = new WorkerAuditParser(WORKER, logger);
    cleanup.push(() => parser.close());
    const [fromWorker, again] = await Promise.all([parser.parse(texts, times), parser.parse(texts.slice(0, 1), times.slice(0, 1))]);
    const inline = await inlineAuditParser.parse(texts, times);
    expect(fromWorker.every((r) => 'encoded' in r)).toBe(true);
    expect(audits(fromWorker)).toEqual(audits(inline));
    expect(audits(again)).toEqual(audits(inline).slice(0, 1));
    // Encoded as the audit log encodes it, so storing it needs no second pass over the audit.
    expect(fromWorker.map((r) => ('encoded' in r ? r.encoded : null))).toEqual(inline.map((r) => ('audit' in r ? (JSON.parse(JSON.stringify(encodeAudit(r.audit))) as EncodedAudit) : null)));
    expect(audits(fromWorker)[0]?.audit.eventIdentification.eventDateTime).toBeInstanceOf(Date);
    expect(fromWorker[2]?.problem).toBeDefined();
    expect(audits(fromWorker)[2]?.audit.eventIdentification.eventDateTime).toEqual(new Date(times[2] ?? 0));
  });

  it('parses a dead worker’s batch inline and starts another, then stays inline after repeated deaths', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'junction-parsers-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const dying = join(dir, 'dying.mjs');
    await writeFile(dying, "import { parentPort } from 'node:worker_threads'; parentPort.on('message', () => process.exit(3));\n");
    const { logger, lines } = memoryLogger();
    const parser = new WorkerAuditParser(dying, logger);
    cleanup.push(() => parser.close());
    const inline = await inlineAuditParser.parse(texts, times);
    for (let i = 0; i < 4; i++) expect(audits(await parser.parse(texts, times))).toEqual(audits(inline));
    const deaths = lines.filter((l) => String(l.msg).includes('parse worker'));
    expect(deaths.map((l) => l.deaths)).toEqual([1, 2, 3]);
    expect(String(deaths.at(-1)?.msg)).toContain('parsing on the main thread from now on');
  });

  it('parses inline when the worker script cannot be loaded', async () => {
    const { logger } = memoryLogger();
    const parser = new WorkerAuditParser(join(tmpdir(), 'no-such-parse-worker.js'), logger);
    cleanup.push(() => parser.close());
    expect(audits(await parser.parse(texts, times))).toEqual(audits(await inlineAuditParser.parse(texts, times)));
  });

  it('parses inline when run from the TypeScript sources, which have no compiled worker beside them', () => {
    expect(createAuditParser(memoryLogger().logger)).toBe(inlineAuditParser);
  });
});
