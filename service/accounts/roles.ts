/**
 * Roles over the channels and clients collections. A role is not stored: it is a name in channels' `allow` lists and
 * clients' `roles` (domain/access/roles.ts plans each change); this module reads what the plans look at and writes what they
 * decide.
 */
import { AppError } from '../errors.js';
import { refusal } from '../refusals.js';
import { findRole, listRoles, planCreateRole, planDeleteRole, planUpdateRole } from '../domain/access/roles.js';
import type { RoleInput, RolePlan, RoleView, RoleWorld } from '../domain/access/roles.js';
import type { ChannelRecord, ClientRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';

export interface RolesOptions {
  /** The same channels collection every channel writer uses, so the pipeline's channel cache sees role changes. */
  channels: Collection<ChannelRecord>;
  clients: Collection<ClientRecord>;
}

export class Roles {
  readonly #options: RolesOptions;
  // Role changes read and rewrite several documents; running them one at a time keeps two requests from undoing each other.
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: RolesOptions) {
    this.#options = options;
  }

  /** Every role, by name. */
  async list(): Promise<RoleView[]> {
    return listRoles(await this.#world());
  }

  /** The role with this name; 404 when nothing holds it. */
  async get(name: string): Promise<RoleView> {
    const role = findRole(await this.#world(), name);
    if (role === null) throw new AppError('NOT_FOUND', `No role named ${name}`);
    return role;
  }

  /** Gives a new role to the channels and clients listed. */
  create(input: RoleInput): Promise<RoleView> {
    return this.#serially(async () => this.#apply(planCreateRole(await this.#world(), input)));
  }

  /** Renames a role or changes who holds it. */
  update(name: string, input: RoleInput): Promise<RoleView> {
    return this.#serially(async () => this.#apply(planUpdateRole(await this.#world(), name, input)));
  }

  /** Takes the role from every channel and client that holds it. */
  async remove(name: string): Promise<void> {
    await this.#serially(async () => this.#apply(planDeleteRole(await this.#world(), name)));
  }

  #serially<T>(job: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(job, job);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #world(): Promise<RoleWorld> {
    const [channels, clients] = await Promise.all([this.#options.channels.find({ status: { $ne: 'deleted' } }), this.#options.clients.find({})]);
    return { channels, clients };
  }

  async #apply(result: RolePlan): Promise<RoleView> {
    if (!result.ok) {
      const { code, message, path } = result.problem;
      throw code === 'NOT_FOUND' ? new AppError(code, message, null) : refusal(code, { path, message });
    }
    const now = new Date();
    for (const channel of result.changes.channels) await this.#options.channels.updateById(channel._id, { set: { allow: channel.allow, updatedAt: now } });
    for (const client of result.changes.clients) await this.#options.clients.updateById(client._id, { set: { roles: client.roles, updatedAt: now } });
    return result.role;
  }
}
