/**
 * Registered mediators: registration (create, upgrade to a higher version, or nothing), heartbeats, configuration,
 * online status and default channels, over the mediators collection. Decisions live in domain/mediator-*.ts.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import { carryOverConfig, configProblems, unmaskConfig } from '../domain/channels/mediator-config.js';
import type { ConfigValues } from '../domain/channels/mediator-config.js';
import { configDue, isOnline, registrationAction, registrationProblems, unmaskRegistration } from '../domain/channels/mediator-registration.js';
import type { RegistrationAction, RegistrationDoc } from '../domain/channels/mediator-registration.js';
import type { LiveEvents } from '../events/live.js';
import type { ChannelRecord, MediatorRecord } from '../storage/records.js';
import type { Changes, Collection } from '../storage/store.js';
import { conflict, refuseIfInvalid } from '../refusals.js';
import { installDefaultChannels, pickDefaults, updateInstalledChannels } from './default-channels.js';
import type { Author } from '../accounts/users.js';
import type { ChannelHistory } from '../channels/history.js';

export interface MediatorRegistryOptions {
  mediators: Collection<MediatorRecord>;
  /** The channels collection the API writes through, so the pipeline's channel cache sees installs and updates. */
  channels: Collection<ChannelRecord>;
  /** Where installs and upgrades of default channels are recorded, as changes through /channels are. */
  history: ChannelHistory;
  events: LiveEvents;
  logger: Logger;
  /** A mediator silent for this long is offline (OpenHIM: 60 s). */
  offlineAfterMs: number;
  now?: () => number;
}

export interface Heartbeat {
  /** Seconds the mediator has been running. */
  uptime: number;
  /** Asks for the configuration in the answer. */
  config?: boolean;
}

export class MediatorRegistry {
  readonly #options: MediatorRegistryOptions;
  readonly #now: () => number;

  constructor(options: MediatorRegistryOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** True while the mediator's heartbeats are recent enough. */
  isOnline(mediator: Pick<MediatorRecord, '_lastHeartbeat'>): boolean {
    return isOnline(mediator._lastHeartbeat, this.#now(), this.#options.offlineAfterMs);
  }

  /** Every mediator, by name. */
  list(): Promise<MediatorRecord[]> {
    return this.#options.mediators.find({}, { sort: { name: 1, urn: 1 } });
  }

  /** One mediator by urn; 404 when unknown. */
  async get(urn: string): Promise<MediatorRecord> {
    const mediator = await this.#options.mediators.findOne({ urn });
    if (mediator === null) throw new AppError('NOT_FOUND', `No mediator with urn ${urn}`);
    return mediator;
  }

  /**
   * Registers a mediator: a new urn is created, a higher version replaces the registration (keeping configured
   * values that still fit and updating the channels installed from its defaults), an equal or lower one changes
   * nothing. The whole document is checked first in every case.
   */
  async register(sent: RegistrationDoc, by: Author): Promise<{ action: RegistrationAction; mediator: MediatorRecord }> {
    const { mediators, channels, logger } = this.#options;
    const existing = await mediators.findOne({ urn: sent.urn });
    refuseIfInvalid(registrationProblems(sent, existing === null));
    const action = registrationAction(existing?.version, sent.version);
    if (existing !== null && action === 'unchanged') {
      logger.info({ urn: sent.urn, version: sent.version, registered: existing.version }, 'mediator registration ignored: the version is not higher');
      return { action, mediator: existing };
    }
    // Only a document that is written needs its masks resolved: an ignored one may carry them freely.
    const { doc, problems } = unmaskRegistration(sent, existing);
    refuseIfInvalid(problems);
    const now = new Date(this.#now());
    const fields = {
      version: doc.version,
      name: doc.name,
      defaultChannelConfig: doc.defaultChannelConfig ?? [],
      configDefs: doc.configDefs ?? [],
    };
    if (existing === null) {
      const created = await mediators
        .insert({
          urn: doc.urn,
          ...fields,
          ...(doc.description === undefined ? {} : { description: doc.description }),
          endpoints: doc.endpoints ?? [],
          config: doc.config ?? {},
          installedChannels: [],
          createdAt: now,
          updatedAt: now,
          updatedBy: by,
        })
        .catch(conflict({ message: () => `Mediator ${doc.urn} was registered by another request at the same time; register again` }));
      logger.info({ urn: doc.urn, version: doc.version, by: by.name }, 'mediator registered');
      return { action: 'create', mediator: created };
    }
    const config = carryOverConfig(fields.configDefs, doc.config ?? {}, existing.config);
    const changes: Changes<MediatorRecord> = {
      set: {
        ...fields,
        // An upgrade may leave its endpoints out; the registered ones stay then.
        endpoints: doc.endpoints !== undefined && doc.endpoints.length > 0 ? doc.endpoints : existing.endpoints,
        config,
        updatedAt: now,
        updatedBy: by,
        ...(doc.description === undefined ? {} : { description: doc.description }),
        // The running mediator learns of a changed configuration through its next heartbeat.
        ...(isDeepStrictEqual(config, existing.config) ? {} : { _configModifiedTS: now }),
      },
      unset: doc.description === undefined ? ['description'] : [],
    };
    const upgraded = await mediators.updateById(existing._id, changes);
    if (upgraded === null) throw new AppError('NOT_FOUND', `Mediator ${doc.urn} was deleted while it registered; register again`);
    const updatedChannels = await updateInstalledChannels(channels, this.#options.history, upgraded, upgraded.defaultChannelConfig, by, logger);
    logger.info({ urn: doc.urn, from: existing.version, to: doc.version, channelsUpdated: updatedChannels.length, by: by.name }, 'mediator upgraded');
    return { action, mediator: upgraded };
  }

  /** Removes a mediator; its installed channels stay. 404 when unknown. */
  async remove(urn: string): Promise<MediatorRecord> {
    const mediator = await this.get(urn);
    await this.#options.mediators.removeById(mediator._id);
    return mediator;
  }

  /**
   * Records a heartbeat and tells the live feed. Returns the configuration (passwords in clear: the mediator needs
   * them) when it was asked for or changed since the previous heartbeat, else null. 404 when the urn is unknown.
   */
  async heartbeat(urn: string, beat: Heartbeat): Promise<ConfigValues | null> {
    // Taken before the read: a configuration change written after the read is newer, so the next heartbeat sends it.
    const at = new Date(this.#now());
    const mediator = await this.get(urn);
    const due = configDue(mediator, beat.config === true);
    await this.#options.mediators.updateById(mediator._id, { set: { _lastHeartbeat: at, _uptime: beat.uptime } });
    this.#options.events.emit('mediator.heartbeat', { urn, name: mediator.name, uptime: beat.uptime, at });
    return due ? mediator.config : null;
  }

  /**
   * Replaces the configuration, checked against configDefs; masks sent back keep the stored passwords. The next
   * heartbeat carries it to the mediator.
   */
  async updateConfig(urn: string, config: ConfigValues, by: Author): Promise<MediatorRecord> {
    const mediator = await this.get(urn);
    // Checked before unmasking: the mask is a string, so it passes as a password, and odd keys never reach a copy.
    refuseIfInvalid(configProblems(mediator.configDefs, config, 'body'));
    const unmasked = unmaskConfig(mediator.configDefs, config, mediator.config, 'body');
    refuseIfInvalid(unmasked.problems);
    const now = new Date(this.#now());
    const updated = await this.#options.mediators.updateById(mediator._id, { set: { config: unmasked.config, _configModifiedTS: now, updatedAt: now, updatedBy: by } });
    if (updated === null) throw new AppError('NOT_FOUND', `No mediator with urn ${urn}`);
    this.#options.logger.info({ urn, params: Object.keys(config), by: by.name }, 'mediator configuration changed');
    return updated;
  }

  /** Installs the named default channels (all when `names` is empty) and remembers them for later upgrades. */
  async installChannels(urn: string, names: readonly string[], by: Author): Promise<ChannelRecord[]> {
    const mediator = await this.get(urn);
    const installed = await installDefaultChannels(this.#options.channels, this.#options.history, mediator, pickDefaults(mediator, names), by);
    const installedNames = new Set(installed.map((c) => c.name));
    const installedChannels = [...mediator.installedChannels.filter((c) => !installedNames.has(c.name)), ...installed.map((c) => ({ name: c.name, channelId: c._id }))];
    await this.#options.mediators.updateById(mediator._id, { set: { installedChannels } });
    this.#options.logger.info({ urn, channels: [...installedNames], by: by.name }, 'mediator default channels installed');
    return installed;
  }

  /** Uptime (seconds) per urn, or null for a mediator that is offline: the `mediators` of GET /heartbeat. */
  async uptimes(): Promise<Record<string, number | null>> {
    // fromEntries defines own properties, so no urn can reach the prototype of the answer.
    return Object.fromEntries((await this.list()).map((m) => [m.urn, this.isOnline(m) ? (m._uptime ?? null) : null]));
  }
}
