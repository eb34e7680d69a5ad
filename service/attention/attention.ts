/**
 * The "needs attention" list (`GET /attention`, issue 35): every source of sources.ts read side by side, worst
 * first, and cut to what the viewer may see. A source that fails becomes an item of its own, so a broken check is
 * never mistaken for "nothing to do".
 */
import type { Logger } from 'pino';
import type { AttentionItem, AttentionList } from '../contracts/attention.js';
import { checkFailedItem, visibleItems, worstFirst } from '../domain/operations/attention.js';
import { ATTENTION_SOURCES, SOURCES } from './sources.js';
import type { AttentionDeps } from './sources.js';

export interface Viewer {
  admin: boolean;
  mayViewChannel: (channelId: string) => boolean;
}

export class Attention {
  readonly #deps: AttentionDeps;
  readonly #logger: Logger;
  readonly #now: () => number;

  constructor(deps: AttentionDeps, logger: Logger, now: () => number = Date.now) {
    this.#deps = deps;
    this.#logger = logger;
    this.#now = now;
  }

  /** Every item, worst first (admins' view). */
  async items(): Promise<AttentionItem[]> {
    const now = new Date(this.#now());
    const found = await Promise.all(
      ATTENTION_SOURCES.map(async (name) => {
        try {
          return await SOURCES[name](this.#deps, now);
        } catch (err) {
          this.#logger.error({ err, source: name }, 'a needs-attention source could not be read');
          return [checkFailedItem(name, err instanceof Error ? err.message : String(err))];
        }
      }),
    );
    return worstFirst(found.flat());
  }

  /** The list as `viewer` may see it. */
  async list(viewer: Viewer): Promise<AttentionList> {
    const checkedAt = new Date(this.#now()).toISOString();
    const items = visibleItems(await this.items(), viewer);
    if (!viewer.admin) return { items, checkedAt };
    let setup: Awaited<ReturnType<AttentionDeps['messaging']>>;
    try {
      setup = await this.#deps.messaging();
    } catch (err) {
      // The saved settings could not be read (the database is away): the items, which say so, still answer.
      this.#logger.error({ err }, 'whether email and SMS are set up could not be read');
      return { items, checkedAt };
    }
    const { email, sms } = setup;
    return { items, checkedAt, messaging: { ...(email === null ? {} : { email }), ...(sms === null ? {} : { sms }) } };
  }
}
