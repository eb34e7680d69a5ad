/**
 * Where received audit messages are parsed. Parsing a 2 KB audit costs about as much as storing it, so the service
 * parses in one worker thread and the main thread, which also frames the sockets and writes SQLite, only reads the
 * answers back (parse-answer.ts, a tenth of the parse). The inline parser is the fallback: when the compiled worker script is
 * not there (tests run the TypeScript sources), and for a batch whose worker died, so no message is ever lost.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { malformedAudit, parseAuditMessage } from './parse-audit.js';
import type { ParsedAuditMessage } from './parse-audit.js';
import { readAnswer } from './parse-answer.js';
import type { ParseAnswer } from './parse-answer.js';
import type { ParseRequest } from './parse-worker.js';
import type { EncodedAudit } from '../storage/audit-rows.js';
import type { NewAudit } from '../storage/audits.js';

/** A parsed message: the audit as an object (parsed inline) or already encoded for the audit log (by the worker). */
export type ParsedMessage = { problem?: string } & ({ audit: NewAudit } | { encoded: EncodedAudit });

export interface AuditParser {
  /** Parses messages received at the given times (epoch ms); never rejects: a failing worker falls back inline. */
  parse(texts: string[], receivedAt: number[]): Promise<ParsedMessage[]>;
  /** Ends the worker, if any; batches still out are parsed inline. */
  close(): Promise<void>;
}

/** Parses on the calling thread. */
export const inlineAuditParser: AuditParser = {
  parse: (texts, receivedAt) => Promise.resolve(parseInline(texts, receivedAt)),
  close: () => Promise.resolve(),
};

function parseInline(texts: readonly string[], receivedAt: readonly number[]): ParsedAuditMessage[] {
  return texts.map((text, i) => parseOne(text, new Date(receivedAt[i] ?? Date.now())));
}

/** The parser is written not to throw; should it, the message is still kept, raw, rather than lost. */
export function parseOne(text: string, receivedAt: Date): ParsedAuditMessage {
  try {
    return parseAuditMessage(text, receivedAt);
  } catch (err) {
    return { audit: malformedAudit(text, undefined, receivedAt), problem: `could not be parsed: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** After this many worker deaths in a row (each batch it held parsed inline), parsing stays inline. */
const MAX_RESTARTS = 3;

interface Outstanding {
  texts: string[];
  receivedAt: number[];
  resolve: (results: ParsedMessage[]) => void;
}

/** Parses in one worker thread running `script` (the compiled parse-worker.js), started on first use. */
export class WorkerAuditParser implements AuditParser {
  readonly #script: string;
  readonly #logger: Logger;
  #worker: Worker | null = null;
  #nextId = 1;
  readonly #outstanding = new Map<number, Outstanding>();
  #deaths = 0;
  #closed = false;

  constructor(script: string, logger: Logger) {
    this.#script = script;
    this.#logger = logger;
  }

  parse(texts: string[], receivedAt: number[]): Promise<ParsedMessage[]> {
    const worker = this.#closed || this.#deaths >= MAX_RESTARTS ? null : this.#ensureWorker();
    if (worker === null) return Promise.resolve(parseInline(texts, receivedAt));
    return new Promise((resolve) => {
      const id = this.#nextId++;
      this.#outstanding.set(id, { texts, receivedAt, resolve });
      const request: ParseRequest = { id, texts, receivedAt };
      worker.postMessage(request);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = null;
    this.#parseOutstandingInline();
    if (worker !== null) await worker.terminate();
  }

  #ensureWorker(): Worker | null {
    if (this.#worker !== null) return this.#worker;
    let worker: Worker;
    try {
      worker = new Worker(this.#script);
    } catch (err) {
      this.#deaths = MAX_RESTARTS;
      this.#logger.error({ err, script: this.#script }, 'audit parser: could not start the parse worker; parsing on the main thread');
      return null;
    }
    // Idle, it must not keep the service alive; batches out are answered before stop() closes it.
    worker.unref();
    worker.on('message', (answer: ParseAnswer) => {
      const outstanding = this.#outstanding.get(answer.id);
      if (outstanding === undefined) return;
      this.#outstanding.delete(answer.id);
      this.#deaths = 0;
      let results: ParsedMessage[] | undefined;
      try {
        results = readAnswer(answer);
      } catch {
        results = undefined;
      }
      // An answer that cannot be read back (never seen: it would be a bug in the worker) costs a parse, not the batch.
      outstanding.resolve(results ?? parseInline(outstanding.texts, outstanding.receivedAt));
    });
    const died = (reason: unknown): void => {
      if (this.#worker !== worker) return;
      this.#worker = null;
      if (this.#closed) return;
      this.#deaths++;
      const inline = this.#deaths >= MAX_RESTARTS;
      this.#logger.error({ err: reason, deaths: this.#deaths }, inline ? 'audit parser: the parse worker keeps dying; parsing on the main thread from now on' : 'audit parser: the parse worker died; its batches are parsed on the main thread and a new worker starts');
      this.#parseOutstandingInline();
    };
    worker.on('error', died);
    worker.on('exit', (code) => died(new Error(`the parse worker exited with code ${code}`)));
    this.#worker = worker;
    return worker;
  }

  #parseOutstandingInline(): void {
    const outstanding = [...this.#outstanding.values()];
    this.#outstanding.clear();
    for (const batch of outstanding) batch.resolve(parseInline(batch.texts, batch.receivedAt));
  }
}

/** The worker parser when the compiled worker script sits beside this module (the built service), else inline. */
export function createAuditParser(logger: Logger): AuditParser {
  const script = fileURLToPath(new URL('./parse-worker.js', import.meta.url));
  return import.meta.url.endsWith('.js') && existsSync(script) ? new WorkerAuditParser(script, logger) : inlineAuditParser;
}
