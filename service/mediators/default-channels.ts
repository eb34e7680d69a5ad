/**
 * Channels from a mediator's defaultChannelConfig: installing them on request, and updating the installed ones when a
 * higher version registers. Each goes through the same defaults and rules as a POST /channels body.
 */
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import type { ValidationProblem } from '../contracts/api.js';
import { channelDraft } from '../domain/channels/channel-draft.js';
import { channelProblems } from '../domain/channels/channel-rules.js';
import type { ChannelRecord, MediatorChannelDefault, MediatorRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';
import { redraft, replacement } from '../channels/catalogue.js';
import { conflict, refuseIfInvalid } from '../refusals.js';
import type { Author } from '../accounts/users.js';
import type { ChannelHistory } from '../channels/history.js';

/** The defaults named in `names` (all of them when empty); an unknown name is a 400 naming its position. */
export function pickDefaults(mediator: MediatorRecord, names: readonly string[]): MediatorChannelDefault[] {
  if (names.length === 0) return mediator.defaultChannelConfig;
  const known = mediator.defaultChannelConfig.map((d) => d.name);
  const problems: ValidationProblem[] = [];
  const picked: MediatorChannelDefault[] = [];
  names.forEach((name, i) => {
    const found = mediator.defaultChannelConfig.find((d) => d.name === name);
    if (found === undefined) {
      const choice = known.length === 0 ? 'it has none' : `it has: ${known.map((n) => JSON.stringify(n)).join(', ')}`;
      problems.push({ path: `body.${i}`, message: `is not a default channel of mediator ${mediator.urn}; ${choice}` });
    } else picked.push(found);
  });
  refuseIfInvalid(problems);
  return picked;
}

/** Installs the given default channels of a mediator; all are checked before any is written. Returns them as stored. */
export async function installDefaultChannels(
  channels: Collection<ChannelRecord>,
  history: ChannelHistory,
  mediator: MediatorRecord,
  defaults: readonly MediatorChannelDefault[],
  by: Author,
): Promise<ChannelRecord[]> {
  if (defaults.length === 0) {
    throw new AppError('BAD_REQUEST', `Mediator ${mediator.urn} has no defaultChannelConfig to install`);
  }
  const drafts = defaults.map((d) => channelDraft(d));
  refuseIfInvalid(drafts.flatMap((draft) => channelProblems(draft, `defaultChannelConfig.${mediator.defaultChannelConfig.findIndex((d) => d.name === draft.name)}`)));
  for (const draft of drafts) {
    // A deleted channel kept for its transactions does not hold its name (domain/channels/channel-names.ts).
    if ((await channels.findOne({ name: draft.name, status: { $ne: 'deleted' } })) !== null) {
      const problem = { path: 'body', message: `names channel "${draft.name}", but a channel with that name already exists; rename or delete it first` };
      throw new AppError('CONFLICT', `A channel named "${draft.name}" already exists`, [problem]);
    }
  }
  const installed: ChannelRecord[] = [];
  for (const draft of drafts) {
    const now = new Date();
    const taken = conflict({ message: () => `A channel named "${draft.name}" already exists` });
    const created = await channels.insert({ ...draft, createdAt: now, updatedAt: now, updatedBy: by }).catch(taken);
    await history.record(created._id, null, created, by);
    installed.push(created);
  }
  return installed;
}

/**
 * Applies a new version's default channels to the channels installed from the old one (matched by default name):
 * the fields the new default gives replace the stored ones, the rest (an admin's additions) stay. A channel that
 * would break the channel rules, was removed, or has no default any more is left as it is and logged. Returns the
 * ids of the channels updated.
 */
export async function updateInstalledChannels(
  channels: Collection<ChannelRecord>,
  history: ChannelHistory,
  mediator: MediatorRecord,
  defaults: readonly MediatorChannelDefault[],
  by: Author,
  logger: Logger,
): Promise<string[]> {
  const updated: string[] = [];
  for (const installed of mediator.installedChannels) {
    const fresh = defaults.find((d) => d.name === installed.name);
    const stored = await channels.findById(installed.channelId);
    if (fresh === undefined || stored === null || stored.status === 'deleted') {
      logger.info({ urn: mediator.urn, channel: installed.name, reason: fresh === undefined ? 'no longer a default' : 'channel removed' }, 'installed mediator channel not updated');
      continue;
    }
    // The default's name only links the two; an admin may have renamed the channel, and that name stays.
    const draft = redraft({ ...stored, ...fresh, name: stored.name });
    const problems = channelProblems(draft, `channel ${stored.name}`);
    if (problems.length > 0) {
      logger.warn({ urn: mediator.urn, channel: stored.name, problems }, 'installed mediator channel not updated: the new default would break the channel rules');
      continue;
    }
    const changed = await channels.updateById(stored._id, replacement(stored, draft, by));
    if (changed === null) continue;
    await history.record(stored._id, stored, changed, by);
    updated.push(stored._id);
  }
  return updated;
}
