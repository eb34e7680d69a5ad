/**
 * The change bus between instances sharing a database, over its notices (notices.ts: NOTIFY on PostgreSQL). An
 * instance ignores its own notices (its write already refreshed what it holds), and after its listening connection
 * comes back it asks for a full resync, since notices sent meanwhile are gone.
 */
import type { Logger } from 'pino';
import { decodeChange, encodeChange } from './change-bus.js';
import type { ChangeBus, ChangeKind, ChangeNotice } from './change-bus.js';
import type { Notices } from './notices.js';

export interface NoticeChangeBusOptions {
  notices: Notices;
  /** This instance's id, the origin of its notices. */
  origin: string;
  logger: Logger;
}

export class NoticeChangeBus implements ChangeBus {
  readonly #options: NoticeChangeBusOptions;
  readonly #changed = new Set<(notice: ChangeNotice) => void>();
  readonly #resync = new Set<() => void>();
  // Notices leave one after another, so another instance never sees an older write after a newer one.
  #sending: Promise<void> = Promise.resolve();

  constructor(options: NoticeChangeBusOptions) {
    this.#options = options;
    options.notices.on('changes', (payload) => this.#receive(payload));
    options.notices.onReconnect(() => {
      for (const listener of this.#resync) listener();
    });
  }

  publish(kind: ChangeKind, ids: readonly string[] | null): void {
    const payload = encodeChange({ kind, ids, origin: this.#options.origin });
    this.#sending = this.#sending.then(async () => {
      try {
        await this.#options.notices.send('changes', payload);
      } catch (err) {
        // The write itself succeeded; the other instances catch up at their next resync (a reconnect, a restart).
        this.#options.logger.error({ err, kind }, 'a change could not be announced to the other instances');
      }
    });
  }

  onChange(listener: (notice: ChangeNotice) => void): () => void {
    this.#changed.add(listener);
    return () => this.#changed.delete(listener);
  }

  onResync(listener: () => void): () => void {
    this.#resync.add(listener);
    return () => this.#resync.delete(listener);
  }

  settled(): Promise<void> {
    return this.#sending;
  }

  #receive(payload: string): void {
    const notice = decodeChange(payload);
    if (notice === null) {
      this.#options.logger.warn({ bytes: payload.length }, 'ignored a change notice this version cannot read');
      return;
    }
    if (notice.origin === this.#options.origin) return;
    for (const listener of this.#changed) listener(notice);
  }
}
