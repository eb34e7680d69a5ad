/**
 * The settings a clinic changes in the console (issue 35): email, the SMS gateway, the console's address in links
 * and the backup schedule. A value saved here (the `settings` collection, one record per key) wins over the
 * configuration file and the environment until it is cleared; the parts that use these values (the notify
 * transports, the console address, the backup job) subscribe to `onChange` and apply a change at once, and on
 * PostgreSQL a save on another instance is heard through the cluster's `settings` notices (`reload`).
 *
 * A value is checked as the configuration file's would be (the config schema and its checks between keys), against
 * the whole configuration it would make, so the console can never save what the file would be refused for.
 */
import { isDeepStrictEqual } from 'node:util';
import { invalidInput } from '../refusals.js';
import { CLINIC_SETTING_KEYS, SECRET_SETTING_KEYS } from '../contracts/settings.js';
import type { ClinicSetting, ClinicSettingKey, ClinicSettingsInput, ClinicSettingValue } from '../contracts/settings.js';
import type { ValidationProblem } from '../contracts/api.js';
import { getPath, schemaAt, setPath } from '../config/leaves.js';
import { schemaProblems } from '../config/validate.js';
import { crossFieldProblems } from '../config/checks.js';
import type { JunctionConfig } from '../config/schema.js';
import type { SettingRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';
import type { TextSealer } from '../storage/sealed-route-passwords.js';

/** The values in force for the parts that apply them. */
export interface EffectiveSettings {
  email: JunctionConfig['email'];
  sms: JunctionConfig['sms'];
  consoleURL: string;
  backup: JunctionConfig['backup'];
}

export interface ClinicSettingsOptions {
  /** The configuration as loaded from defaults, the file and the environment. */
  config: JunctionConfig;
  collection: Collection<SettingRecord>;
  /** Seals secrets at rest with the keystore secret, as route passwords are. */
  sealer: TextSealer;
  /** A saved secret that no longer opens (another keystore secret): it is left out, and this says so. */
  unreadable: (key: ClinicSettingKey, error: unknown) => void;
}

const SECRETS = new Set<string>(SECRET_SETTING_KEYS);
const KEYS = new Set<string>(CLINIC_SETTING_KEYS);

export function isClinicSettingKey(key: string): key is ClinicSettingKey {
  return KEYS.has(key);
}

/** A copy of the configuration's plain objects deep enough to set values in (the loaded one is frozen). */
function thaw(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(thaw);
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, thaw(v)]));
  }
  return value;
}

/** "email.fromAddress: must be set ..." as the problem of `body.email.fromAddress`. */
function asProblem(text: string): ValidationProblem {
  const colon = text.indexOf(': ');
  const key = colon === -1 ? '' : text.slice(0, colon);
  return isClinicSettingKey(key) ? { path: `body.${key}`, message: text.slice(colon + 2) } : { path: 'body', message: text };
}

/** What the configuration file's checks say of a whole configuration. */
function configProblems(merged: Record<string, unknown>): string[] {
  return [...schemaProblems(merged, (key) => ({ where: key, showsValue: !SECRETS.has(key) })), ...crossFieldProblems(merged)];
}

export class ClinicSettings {
  readonly #o: ClinicSettingsOptions;
  /** The saved values, opened, by key. */
  #saved = new Map<ClinicSettingKey, SettingRecord>();
  readonly #listeners = new Set<(settings: EffectiveSettings) => void>();

  constructor(options: ClinicSettingsOptions) {
    this.#o = options;
  }

  /** Reads the saved values again (at start, and when another instance saved some); tells the subscribers when they changed. */
  async reload(): Promise<void> {
    const before = this.effective();
    const records = await this.#o.collection.find({});
    const saved = new Map<ClinicSettingKey, SettingRecord>();
    for (const record of records) {
      if (!isClinicSettingKey(record.key)) continue;
      if (SECRETS.has(record.key) && typeof record.value === 'string') {
        try {
          saved.set(record.key, { ...record, value: this.#o.sealer.isSealed(record.value) ? this.#o.sealer.open(record.value) : record.value });
        } catch (error) {
          this.#o.unreadable(record.key, error);
        }
        continue;
      }
      saved.set(record.key, record);
    }
    this.#saved = saved;
    if (!isDeepStrictEqual(before, this.effective())) this.#emit();
  }

  /** Calls `listener` with the values in force after every change; returns the way to stop. */
  onChange(listener: (settings: EffectiveSettings) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(): void {
    const settings = this.effective();
    for (const listener of this.#listeners) listener(settings);
  }

  /** The whole configuration with the saved values (and `overlay`, not saved) in force. */
  #merged(overlay: ClinicSettingsInput = {}): Record<string, unknown> {
    const merged = thaw(this.#o.config) as Record<string, unknown>;
    for (const [key, record] of this.#saved) setPath(merged, key, record.value);
    for (const [key, value] of Object.entries(overlay)) {
      if (!isClinicSettingKey(key) || value === undefined) continue;
      setPath(merged, key, value === null ? getPath(this.#o.config, key) : value);
    }
    return merged;
  }

  /** The values in force. */
  effective(overlay: ClinicSettingsInput = {}): EffectiveSettings {
    const merged = this.#merged(overlay) as unknown as JunctionConfig;
    return { email: merged.email, sms: merged.sms, consoleURL: merged.alerts.consoleURL, backup: merged.backup };
  }

  /** Every setting: its value in force (secrets only whether one is set), where it comes from, and the file's value. */
  list(): ClinicSetting[] {
    const merged = this.#merged();
    return CLINIC_SETTING_KEYS.map((key) => {
      const secret = SECRETS.has(key);
      const saved = this.#saved.get(key);
      const fileValue = getPath(this.#o.config, key) as ClinicSettingValue | undefined;
      const value = getPath(merged, key) as ClinicSettingValue | undefined;
      const source = saved !== undefined ? 'console' : fileValue === undefined || isDeepStrictEqual(fileValue, schemaAt(key)?.default) ? 'default' : 'file';
      return {
        key,
        secret,
        source,
        ...(secret ? { set: value !== undefined && value !== '' } : value === undefined ? {} : { value }),
        ...(secret || fileValue === undefined ? {} : { fileValue }),
        ...(saved === undefined ? {} : { changedBy: saved.changedBy, changed: saved.changed.toISOString() }),
      } satisfies ClinicSetting;
    });
  }

  /**
   * The problems of the configuration `input` would make, each at its key; none when it would be accepted. A key
   * not in the list, or a value the file could not hold, is named.
   */
  problems(input: ClinicSettingsInput): ValidationProblem[] {
    const unknown = Object.keys(input).filter((key) => !isClinicSettingKey(key));
    if (unknown.length > 0) return unknown.map((key) => ({ path: `body.${key}`, message: `is not a setting the console can change (those are ${CLINIC_SETTING_KEYS.join(', ')})` }));
    // Only the problems the change brings: what the configuration held already was accepted at start (an embedding
    // may pass values the file could not hold, such as port 0 for any free port).
    const before = new Set(configProblems(this.#merged()));
    return configProblems(this.#merged(input))
      .filter((text) => !before.has(text))
      .map(asProblem);
  }

  /** Saves `input` (null clears a key), after checking the whole; 400 naming each problem. Tells the subscribers. */
  async save(input: ClinicSettingsInput, by: string, now = new Date()): Promise<ClinicSettingKey[]> {
    const problems = this.problems(input);
    if (problems.length > 0) throw invalidInput(problems);
    const changed: ClinicSettingKey[] = [];
    for (const [key, value] of Object.entries(input) as [ClinicSettingKey, ClinicSettingValue | null | undefined][]) {
      if (value === undefined) continue;
      const existing = await this.#o.collection.findOne({ key });
      if (value === null) {
        if (existing !== null) {
          await this.#o.collection.removeById(existing._id);
          changed.push(key);
        }
        continue;
      }
      const stored = SECRETS.has(key) && typeof value === 'string' ? this.#o.sealer.seal(value) : value;
      if (existing === null) await this.#o.collection.insert({ key, value: stored, changed: now, changedBy: by });
      else await this.#o.collection.updateById(existing._id, { set: { value: stored, changed: now, changedBy: by } });
      changed.push(key);
    }
    await this.reload();
    return changed;
  }
}
