/**
 * Contact groups over the contactGroups collection: listed, read, created, changed and deleted through the rules of
 * domain/alerts/contact-groups.ts. A group that a channel's alert names cannot be deleted (409 naming those channels), and
 * channel writes ask `unknown` which group ids they add that name no group.
 */
import { AppError } from '../errors.js';
import type { ContactGroupCreateInput, ContactGroupUpdateInput } from '../contracts/contact-groups.js';
import { channelsUsingGroup, externalProblems, groupExternal, groupName, groupProblems, groupRecipients } from '../domain/alerts/contact-groups.js';
import { conflict, refuseIfInvalid } from '../refusals.js';
import type { ChannelRecord, ContactGroupRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';

export interface ContactGroupsOptions {
  groups: Collection<ContactGroupRecord>;
  /** The channels whose alerts name groups by `_id`. */
  channels: Collection<ChannelRecord>;
}

const nameTaken = conflict({ message: () => 'body.group is already the name of another contact group', problem: 'is already the name of another contact group' });

export class ContactGroups {
  readonly #groups: Collection<ContactGroupRecord>;
  readonly #channels: Collection<ChannelRecord>;

  constructor(options: ContactGroupsOptions) {
    this.#groups = options.groups;
    this.#channels = options.channels;
  }

  /** Every group, by name. */
  list(): Promise<ContactGroupRecord[]> {
    return this.#groups.find({}, { sort: { group: 1 } });
  }

  /** The group with this `_id`; 404 when unknown. */
  async get(id: string): Promise<ContactGroupRecord> {
    const group = await this.#groups.findById(id);
    if (group === null) throw new AppError('NOT_FOUND', `No contact group with _id ${id}`);
    return group;
  }

  /** Creates a group; 400 for a blank name or a repeated recipient, 409 when the name is taken. */
  async create(input: ContactGroupCreateInput): Promise<ContactGroupRecord> {
    const group = groupName(input.group);
    const users = groupRecipients(input.users ?? []);
    const external = groupExternal(input.external ?? []);
    refuseIfInvalid([...groupProblems(group, users), ...externalProblems(external)]);
    return this.#groups.insert({ group, users, ...(external.length === 0 ? {} : { external }) }).catch(nameTaken);
  }

  /** Changes the name and/or replaces the recipients (an `_id` in the body is ignored: the URL names the group). 404 when unknown. */
  async update(id: string, changes: ContactGroupUpdateInput): Promise<ContactGroupRecord> {
    const target = await this.get(id);
    const group = changes.group === undefined ? undefined : groupName(changes.group);
    const users = changes.users === undefined ? undefined : groupRecipients(changes.users);
    const external = changes.external === undefined ? undefined : groupExternal(changes.external);
    refuseIfInvalid([...groupProblems(group, users), ...externalProblems(external)]);
    const set: Partial<Omit<ContactGroupRecord, '_id'>> = {};
    if (group !== undefined) set.group = group;
    if (users !== undefined) set.users = users;
    if (external !== undefined) set.external = external;
    if (Object.keys(set).length === 0) return target;
    const updated = await this.#groups.updateById(target._id, { set }).catch(nameTaken);
    if (updated === null) throw new AppError('NOT_FOUND', `No contact group with _id ${id}`);
    return updated;
  }

  /** Deletes a group and returns it as it was; 404 when unknown, 409 naming the channels whose alerts use it. */
  async remove(id: string): Promise<ContactGroupRecord> {
    const target = await this.get(id);
    const users = channelsUsingGroup(await this.#channels.find({}), target._id);
    if (users.length > 0) {
      const names = users.map((c) => (c.status === 'deleted' ? `"${c.name}" (deleted)` : `"${c.name}"`)).join(', ');
      throw new AppError('CONFLICT', `Contact group "${target.group}" is used by the alerts of channel${users.length === 1 ? '' : 's'} ${names}; remove it from their alerts first`, { channels: users });
    }
    await this.#groups.removeById(target._id);
    return target;
  }

  /** The ids among `ids` that name no group. */
  async unknown(ids: readonly string[]): Promise<string[]> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return [];
    const found = new Set((await this.#groups.find({ _id: { $in: wanted } })).map((g) => g._id));
    return wanted.filter((id) => !found.has(id));
  }
}
