/**
 * Polling channels (SPEC.md "Polling channel behaviour"): each enabled polling channel is a job in the scheduler
 * registry, on its cron expression or descriptive interval. A tick sends GET /trigger (or each route's own path) to
 * the channel's enabled routes through the replay entry of the pipeline, and is stored as a transaction with no
 * client. A channel has at most one tick in flight: a tick that falls due, or a manual trigger, while the previous
 * one still waits for a slow target joins it instead of starting another. Channel writes signal `changed()`, so
 * enabling, disabling, editing or deleting a channel reschedules it at once.
 */
import type { Logger } from 'pino';
import { channelKind } from '../domain/channels/channel-kinds.js';
import { parsePollingSchedule } from '../domain/channels/polling-schedule.js';
import type { NewTransaction, Replays } from '../pipeline/replay.js';
import type { ChannelRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';
import { coalesce } from './coalesce.js';
import type { Coalesced } from './coalesce.js';
import type { ScheduledJob, Schedulers } from './registry.js';

export const POLLING_SYNC_JOB = 'polling';
const JOB_PREFIX = 'polling:';
// Channels written by something that does not signal (or a signal lost to an error) are picked up this often.
const RESYNC_MS = 60_000;

export interface PollingDeps {
  registry: Schedulers;
  channels: Collection<ChannelRecord>;
  replays: Pick<Replays, 'newTransaction' | 'poll'>;
  logger: Logger;
}

export interface TriggerResult {
  transactionId: string;
  /** True when a tick was already in flight: no second one was started, and this is its transaction. */
  alreadyRunning: boolean;
}

interface Tick {
  transactionId: string;
  done: Promise<void>;
}

export class PollingChannels {
  readonly #deps: PollingDeps;
  /** Channel id → the schedule text its job was made from. */
  readonly #scheduled = new Map<string, string>();
  readonly #ticks = new Map<string, Tick>();
  readonly #sync: Coalesced;
  #stopped = false;

  constructor(deps: PollingDeps) {
    this.#deps = deps;
    this.#sync = coalesce(() => this.#resync(), deps.logger, 'rescheduling polling channels');
  }

  /** The registry job that keeps the channel jobs in step with the channels (and stops their ticks on shutdown). */
  job(): ScheduledJob {
    // Every instance schedules every polling channel; the channel jobs' leases and claimed ticks decide which one polls.
    return { name: POLLING_SYNC_JOB, everyMs: RESYNC_MS, runAtStart: true, everyInstance: true, run: () => this.#sync.settle(), stop: () => this.#stop() };
  }

  /** Signals that channels were written: their jobs are brought up to date right away. */
  changed(): void {
    if (!this.#stopped) this.#sync.signal();
  }

  /** Brings the channel jobs up to date and resolves when done (tests and callers that must see the result). */
  sync(): Promise<void> {
    return this.#sync.settle();
  }

  /** Fires one tick of the channel now, unless one is in flight (then that one is the answer). */
  trigger(channelId: string): TriggerResult {
    const tick = this.#begin(channelId);
    return { transactionId: tick.transactionId, alreadyRunning: tick.alreadyRunning };
  }

  async #resync(): Promise<void> {
    if (this.#stopped) return;
    const { registry, channels, logger } = this.#deps;
    const enabled = await channels.find({ type: 'polling', status: 'enabled' });
    const wanted = new Map(enabled.map((c) => [c._id, c.pollingSchedule ?? '']));
    for (const [id, text] of this.#scheduled) {
      if (wanted.get(id) === text) continue;
      registry.remove(JOB_PREFIX + id);
      this.#scheduled.delete(id);
      logger.info({ channelID: id }, 'polling channel unscheduled');
    }
    for (const channel of enabled) {
      const text = channel.pollingSchedule ?? '';
      if (this.#scheduled.has(channel._id)) continue;
      const schedule = parsePollingSchedule(text);
      if (schedule === null) {
        // Only a channel stored before schedules were validated can get here.
        logger.error({ channel: channel.name, pollingSchedule: text }, 'polling channel not scheduled: pollingSchedule is neither cron nor "<n> <unit>"');
        continue;
      }
      const id = channel._id;
      const base = { name: JOB_PREFIX + id, run: () => this.#begin(id).done, stop: () => this.#ticks.get(id)?.done ?? Promise.resolve() };
      registry.add(schedule.kind === 'cron' ? { ...base, cron: schedule.expression } : { ...base, everyMs: schedule.ms });
      this.#scheduled.set(id, text);
      logger.info({ channel: channel.name, pollingSchedule: text }, 'polling channel scheduled');
    }
  }

  #begin(channelId: string): Tick & { alreadyRunning: boolean } {
    const running = this.#ticks.get(channelId);
    if (running !== undefined) return { ...running, alreadyRunning: true };
    const tx = this.#deps.replays.newTransaction();
    // Registered before the first await, so a second call in the same moment joins this tick.
    const tick: Tick = { transactionId: tx.id, done: Promise.resolve() };
    this.#ticks.set(channelId, tick);
    tick.done = this.#poll(channelId, tx)
      .catch((err: unknown) => this.#deps.logger.error({ err, channelID: channelId }, 'polling tick failed'))
      .finally(() => this.#ticks.delete(channelId));
    return { ...tick, alreadyRunning: false };
  }

  async #poll(channelId: string, tx: NewTransaction): Promise<void> {
    const channel = await this.#deps.channels.findById(channelId);
    // Read again at each tick: a channel disabled or changed since it was scheduled polls as it is now, or not at all.
    if (this.#stopped || channel === null || channelKind(channel.type)?.entry !== 'poll' || channel.status !== 'enabled') return;
    const stored = await this.#deps.replays.poll(channel, tx);
    this.#deps.logger.debug({ channel: channel.name, transactionId: tx.id, status: stored?.status }, 'polling channel ticked');
  }

  async #stop(): Promise<void> {
    this.#stopped = true;
    await this.#sync.settle().catch(() => undefined);
    await Promise.all([...this.#ticks.values()].map((t) => t.done));
  }
}
