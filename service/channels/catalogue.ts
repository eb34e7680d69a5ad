/**
 * The configured channels: creating, changing, deleting and restoring them, and triggering a polling channel now,
 * over the channels collection. Every write goes through the channel defaults and rules (domain/channels/channel-draft.ts,
 * domain/channels/channel-rules.ts); who may do it is the API's guards' concern.
 *
 * A channel deleted while transactions refer to it is kept with status `deleted`, as in OpenHIM: it stays readable,
 * and an update that sets `status` to enabled or disabled restores it. Its name is free for other channels meanwhile.
 * Each create, update and delete made here is recorded in the channel history (channels/history.ts).
 */
import { AppError } from '../errors.js';
import type { ValidationProblem } from '../contracts/api.js';
import type { ChannelListener } from '../contracts/channels.js';
import { channelChanges } from '../domain/channels/channel-body.js';
import { channelDraft } from '../domain/channels/channel-draft.js';
import type { ChannelInput } from '../domain/channels/channel-draft.js';
import { channelProblems } from '../domain/channels/channel-rules.js';
import type { ChannelDraft } from '../domain/channels/channel-rules.js';
import { PASSWORD_MASK } from '../domain/util/password-mask.js';
import { conflict, refusal, refuseIfInvalid } from '../refusals.js';
import type { Author } from '../accounts/users.js';
import type { ChannelAuditRecord, ChannelRecord, RouteRecord } from '../storage/records.js';
import type { Changes, Collection } from '../storage/store.js';
import { ChannelNameTakenError } from '../storage/live-channel-names.js';
import type { ChannelHistory } from './history.js';
import { channelClaim, portClaimProblems } from '../domain/channels/channel-ports.js';
import { channelKind, LISTENING_CHANNEL_TYPES, listenerOf as listenerProtocol } from '../domain/channels/channel-kinds.js';
import { unknownGroupRefs } from '../domain/alerts/contact-groups.js';
import type { PortClaim } from '../domain/channels/channel-ports.js';

export interface ChannelCatalogueOptions {
  /** The channels collection every writer shares, so the pipeline's channel cache sees each change. */
  channels: Collection<ChannelRecord>;
  /** When present and true, a deletion marks the channel `deleted` so its transactions keep their channel. */
  hasTransactions?: (channelId: string) => Promise<boolean>;
  /** Where each create, update and delete is recorded (`GET /channels/:id/audits`); none records nothing. */
  history?: ChannelHistory;
  /** Fires one tick of a polling channel now (or joins the one in flight); undefined until the schedulers run. */
  triggerPolling: (channelId: string) => { transactionId: string; alreadyRunning: boolean } | undefined;
  /** The ports the service's own listeners hold, which no tcp or tls channel may claim. */
  servicePorts?: () => readonly PortClaim[];
  /** The listeners of tcp and tls channels (transports/sockets.ts), whose state channel answers show. */
  listeners?: ChannelListenerStates;
  /** The ids among those given that name no contact group; without it, alerts' group ids are not checked. */
  unknownContactGroups?: (ids: readonly string[]) => Promise<string[]>;
}

/** What the catalogue asks of the tcp and tls channel listeners. */
export interface ChannelListenerStates {
  state(channelId: string): ChannelListener | undefined;
  /** Resolves once the listeners have caught up with the channel writes so far. */
  settled(): Promise<void>;
}

/** How long a channel write waits for its listener to bind before answering (it answers `starting` after that). */
const LISTENER_WAIT_MS = 3_000;

/** A partial update: any channel fields, null removing one; read-only fields such as `_id` are ignored. */
export type ChannelChanges = Readonly<Record<string, unknown>>;

/** A polling channel fired on request. */
export interface Triggered {
  channel: ChannelRecord;
  transactionId: string;
  /** The previous trigger's poll is still running, and this one joined it instead of starting a second. */
  alreadyRunning: boolean;
}

const SERVICE_FIELDS = ['_id', 'createdAt', 'updatedAt', 'updatedBy'] as const;

/**
 * A stored channel with changes merged onto it, as a draft without the service's own fields. It is checked whole
 * afterwards, so a partial change cannot leave a channel that breaks the rules.
 */
export function redraft(merged: Readonly<Record<string, unknown>>): ChannelDraft {
  const fields: Record<string, unknown> = { ...merged };
  for (const key of SERVICE_FIELDS) delete fields[key];
  return channelDraft(fields as unknown as ChannelInput);
}

/** The write that turns a stored channel into `draft`: its fields set, the fields the draft no longer has removed. */
export function replacement(stored: ChannelRecord, draft: ChannelDraft, by: Author): Changes<ChannelRecord> {
  const unset = Object.keys(stored).filter((k) => !(k in draft) && !(SERVICE_FIELDS as readonly string[]).includes(k));
  return { set: { ...draft, updatedAt: new Date(), updatedBy: by }, unset: unset as Changes<ChannelRecord>['unset'] };
}

/** Swaps masks sent back for the stored password of the route with the same name; a mask with nothing behind it is a problem. */
function unmaskPasswords(routes: RouteRecord[], stored: readonly RouteRecord[]): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  routes.forEach((route, i) => {
    if (route.password !== PASSWORD_MASK) return;
    const previous = stored.find((r) => r.name === route.name)?.password;
    if (previous === undefined) problems.push({ path: `body.routes.${i}.password`, message: 'is the mask shown in answers; send the real password' });
    else route.password = previous;
  });
  return problems;
}

const channelConflict = conflict({ message: (field) => `body.${field} is already used by another channel`, problem: 'is already used by another channel' });

/** A taken name on a restore is told how to get past the clash; any other taken field is an ordinary 409. */
function restoreConflict(err: unknown): never {
  if (err instanceof ChannelNameTakenError) {
    const { holder } = err;
    const message =
      `is used by channel "${holder.name}" (_id ${holder._id}), which is not deleted; ` +
      'to restore this channel, give it another name in the same request: {"status": "enabled", "name": "<new name>"}';
    throw refusal('CONFLICT', { path: 'body.name', message });
  }
  return channelConflict(err);
}

export class ChannelCatalogue {
  readonly #options: ChannelCatalogueOptions;
  /** The last write that claims a port: such writes run one after another, so two cannot both take a free port. */
  #portWrites: Promise<unknown> = Promise.resolve();

  constructor(options: ChannelCatalogueOptions) {
    this.#options = options;
  }

  /**
   * Runs a channel write whose port check must hold until it is stored: one at a time for channels that listen (the
   * check reads the other channels, so two concurrent writes could each see the port free). Others run at once.
   */
  #claimingPort<T>(draft: ChannelDraft, write: () => Promise<T>): Promise<T> {
    if (channelClaim(draft) === null) return write();
    const run = this.#portWrites.then(write, write);
    this.#portWrites = run.catch(() => undefined);
    return run;
  }

  /** A tcp or tls channel may not listen where another channel or the service itself does (400 naming who). */
  async #portProblems(draft: ChannelDraft, ownId: string | null): Promise<ValidationProblem[]> {
    if (channelClaim(draft) === null) return [];
    const others = await this.#options.channels.find({ type: { $in: [...LISTENING_CHANNEL_TYPES] }, status: { $ne: 'deleted' } });
    const claims = others.filter((c) => c._id !== ownId).map(channelClaim).filter((c): c is PortClaim => c !== null);
    return portClaimProblems(draft, [...(this.#options.servicePorts?.() ?? []), ...claims]);
  }

  /** An alert may only name contact groups that exist (400 naming each unknown id), unless the channel named it already. */
  async #groupProblems(draft: ChannelDraft, before: ChannelRecord['alerts']): Promise<ValidationProblem[]> {
    const check = this.#options.unknownContactGroups;
    const ids = draft.alerts.flatMap((a) => a.groups);
    if (check === undefined || ids.length === 0) return [];
    return unknownGroupRefs(draft.alerts, before, new Set(await check(ids)));
  }

  /** The listener of a tcp or tls channel, as it is now; undefined for other channels and when none runs. */
  listenerOf(channel: Pick<ChannelRecord, '_id' | 'type'>): ChannelListener | undefined {
    return listenerProtocol(channel) === null ? undefined : this.#options.listeners?.state(channel._id);
  }

  /** Waits (a few seconds at most) until the listeners reflect the writes made so far, so an answer shows the new state. */
  async listenersSettled(): Promise<void> {
    const listeners = this.#options.listeners;
    if (listeners === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, LISTENER_WAIT_MS);
      timer.unref();
    });
    await Promise.race([listeners.settled(), limit]);
    clearTimeout(timer);
  }

  /** The channels by name; those kept as `deleted` only when asked for. */
  list(includeDeleted: boolean): Promise<ChannelRecord[]> {
    const query = includeDeleted ? {} : { status: { $ne: 'deleted' as const } };
    return this.#options.channels.find(query, { sort: { name: 1 } });
  }

  /** The channel with this id, deleted ones included, or null. */
  find(id: string): Promise<ChannelRecord | null> {
    return this.#options.channels.findById(id);
  }

  /** The channel with this id, deleted ones included (they stay viewable and restorable); 404 when unknown. */
  async get(id: string): Promise<ChannelRecord> {
    const channel = await this.find(id);
    if (channel === null) throw new AppError('NOT_FOUND', `No channel with id ${id}`);
    return channel;
  }

  /** The history of a channel, newest first; empty when none is kept or the id is unknown (as OpenHIM answers). */
  async history(id: string): Promise<ChannelAuditRecord[]> {
    return (await this.#options.history?.list(id)) ?? [];
  }

  /** Creates a channel from a POST body; 400 when it breaks the rules, 409 when its name is taken. */
  async create(body: ChannelInput, by: Author): Promise<ChannelRecord> {
    const draft = channelDraft(body);
    refuseIfInvalid([...unmaskPasswords(draft.routes, []), ...channelProblems(draft), ...(await this.#groupProblems(draft, []))]);
    const now = new Date();
    const created = await this.#claimingPort(draft, async () => {
      refuseIfInvalid(await this.#portProblems(draft, null));
      return this.#options.channels.insert({ ...draft, createdAt: now, updatedAt: now, updatedBy: by }).catch(channelConflict);
    });
    await this.#options.history?.record(created._id, null, created, by);
    return created;
  }

  /** Applies a partial update; `restoring` when it brings a deleted channel back. Masked passwords keep the stored ones. */
  async update(id: string, changes: ChannelChanges, by: Author): Promise<{ channel: ChannelRecord; restoring: boolean }> {
    const stored = await this.get(id);
    // OpenHIM ignores an `_id` in the body (its console sends the whole document back): the URL names the channel.
    const fields = channelChanges(changes);
    const merged: Record<string, unknown> = { ...stored };
    for (const [key, value] of Object.entries(fields)) {
      if (value === null) delete merged[key];
      else merged[key] = value;
    }
    const draft = redraft(merged);
    refuseIfInvalid([
      ...(fields.routes === undefined ? [] : unmaskPasswords(draft.routes, stored.routes)),
      ...channelProblems(draft),
      ...(await this.#groupProblems(draft, stored.alerts)),
    ]);
    // A deleted channel stays deleted through an edit; only a status in the body brings it back.
    const restoring = stored.status === 'deleted' && draft.status !== 'deleted';
    const updated = await this.#claimingPort(draft, async () => {
      refuseIfInvalid(await this.#portProblems(draft, stored._id));
      return this.#options.channels.updateById(stored._id, replacement(stored, draft, by)).catch(restoring ? restoreConflict : channelConflict);
    });
    if (updated === null) throw new AppError('NOT_FOUND', `No channel with id ${stored._id}`);
    await this.#options.history?.record(stored._id, stored, updated, by);
    return { channel: updated, restoring };
  }

  /** Deletes a channel, or keeps it as `deleted` while transactions refer to it (`kept`). 404 when unknown. */
  async remove(id: string, by: Author): Promise<{ channel: ChannelRecord; kept: boolean }> {
    const { channels, hasTransactions } = this.#options;
    const channel = await this.get(id);
    const kept = hasTransactions !== undefined && (await hasTransactions(channel._id));
    // Deleting a channel kept as deleted removes it for good once no transaction refers to it any more (retention).
    if (!kept) {
      await channels.removeById(channel._id);
      await this.#options.history?.record(channel._id, channel, null, by);
    } else if (channel.status !== 'deleted') {
      const marked = await channels.updateById(channel._id, { set: { status: 'deleted', updatedAt: new Date(), updatedBy: by } });
      await this.#options.history?.record(channel._id, channel, marked, by);
    }
    return { channel, kept };
  }

  /** Fires an enabled polling channel now; 400 for other channel types, 409 when it is disabled or deleted. */
  async trigger(id: string): Promise<Triggered> {
    const channel = await this.get(id);
    if (channelKind(channel.type)?.entry !== 'poll') throw new AppError('BAD_REQUEST', `Channel ${channel.name} is a ${channel.type} channel; only polling channels can be triggered`);
    if (channel.status === 'deleted') throw new AppError('CONFLICT', `Channel ${channel.name} is deleted; restore it with PUT {"status": "enabled"} to trigger it`);
    if (channel.status !== 'enabled') throw new AppError('CONFLICT', `Channel ${channel.name} is disabled; enable it to trigger it`);
    const triggered = this.#options.triggerPolling(channel._id);
    if (triggered === undefined) throw new AppError('STORE_UNAVAILABLE', 'Polling channels are not running yet; try again in a moment');
    return { channel, ...triggered };
  }
}
