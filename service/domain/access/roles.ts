/**
 * Roles are not stored: a role is a name found in channels' `allow` lists and clients' `roles`. These pure
 * functions build that view and plan which channels and clients gain or lose a role (SPEC.md "Roles", rules 1-6).
 * Deleted channels take no part: they are neither shown nor changed.
 *
 * A channel's `allow` mixes client ids and role names, so one name must never be both: no role is named like a
 * client's clientID, and no client holds its own clientID as a role. The roles API and the clients API both keep it.
 */
import type { ChannelRef, ClientRef, Role } from '../../contracts/roles.js';

export interface RoleChannel {
  _id: string;
  name: string;
  status: string;
  allow: readonly string[];
}

export interface RoleClient {
  _id: string;
  clientID: string;
  roles: readonly string[];
}

/** The channels and clients a role decision looks at. */
export interface RoleWorld {
  channels: readonly RoleChannel[];
  clients: readonly RoleClient[];
}

/** The role as the API shows it: the same shape the console reads (contracts/roles.ts). */
export type RoleView = Role;
export type { ChannelRef, ClientRef };

export interface RoleInput {
  name?: string;
  channels?: readonly ChannelRef[];
  clients?: readonly ClientRef[];
}

/** The new `allow` of each channel and `roles` of each client that changes; everything else stays as it is. */
export interface RoleChanges {
  channels: { _id: string; allow: string[] }[];
  clients: { _id: string; roles: string[] }[];
}

export interface RoleProblem {
  code: 'VALIDATION_FAILED' | 'CONFLICT' | 'NOT_FOUND';
  message: string;
  path: string;
}

/** Either the changes to make and the role as it will read afterwards, or why the request is refused. */
export type RolePlan = { ok: true; changes: RoleChanges; role: RoleView } | { ok: false; problem: RoleProblem };

// The design-era wildcard in `allow` means "everyone", not a role.
const WILDCARD = '*';

const live = (world: RoleWorld): RoleChannel[] => world.channels.filter((c) => c.status !== 'deleted');
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Every role name: held by a client, or allowed on a live channel without being a client id (those are client grants). */
export function roleNames(world: RoleWorld): string[] {
  const clientIDs = new Set(world.clients.map((c) => c.clientID));
  const names = new Set(world.clients.flatMap((c) => c.roles));
  for (const channel of live(world)) {
    for (const entry of channel.allow) if (entry !== WILDCARD && !clientIDs.has(entry)) names.add(entry);
  }
  return [...names].sort(byText);
}

/** One role as the API shows it: the live channels that allow it and the clients that hold it. */
export function roleView(world: RoleWorld, name: string): RoleView {
  return {
    name,
    channels: live(world)
      .filter((c) => c.allow.includes(name))
      .map((c) => ({ _id: c._id, name: c.name }))
      .sort((a, b) => byText(a.name, b.name)),
    clients: world.clients
      .filter((c) => c.roles.includes(name))
      .map((c) => ({ _id: c._id, clientID: c.clientID }))
      .sort((a, b) => byText(a.clientID, b.clientID)),
  };
}

/** All roles, sorted by name. */
export function listRoles(world: RoleWorld): RoleView[] {
  return roleNames(world).map((name) => roleView(world, name));
}

/** The role with this name, or null when no live channel or client uses it. */
export function findRole(world: RoleWorld, name: string): RoleView | null {
  return roleNames(world).includes(name) ? roleView(world, name) : null;
}

const refuse = (code: RoleProblem['code'], path: string, message: string): RolePlan => ({ ok: false, problem: { code, path, message } });

class UnknownReference extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

function resolveChannels(world: RoleWorld, refs: readonly ChannelRef[]): Set<string> {
  const channels = live(world);
  return new Set(
    refs.map((ref, i) => {
      const found = ref._id !== undefined ? channels.find((c) => c._id === ref._id) : channels.find((c) => c.name === ref.name);
      if (found === undefined) throw new UnknownReference(`body.channels.${i}`, `names no channel: ${JSON.stringify(ref)} (deleted channels cannot be used)`);
      return found._id;
    }),
  );
}

function resolveClients(world: RoleWorld, refs: readonly ClientRef[]): Set<string> {
  return new Set(
    refs.map((ref, i) => {
      const found = ref._id !== undefined ? world.clients.find((c) => c._id === ref._id) : world.clients.find((c) => c.clientID === ref.clientID);
      if (found === undefined) throw new UnknownReference(`body.clients.${i}`, `names no client: ${JSON.stringify(ref)}`);
      return found._id;
    }),
  );
}

/**
 * The next value of one `allow` or `roles` list: `want` says whether the entity should hold the role afterwards.
 * A kept role is renamed in place, so the order admins see does not jump around.
 */
function nextList(list: readonly string[], from: string, to: string, want: boolean): string[] {
  const had = list.includes(from);
  if (had && want) return [...new Set(list.map((entry) => (entry === from ? to : entry)))];
  if (had) return list.filter((entry) => entry !== from);
  if (want && !list.includes(to)) return [...list, to];
  return [...list];
}

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((v, i) => v === b[i]);

/** `channelWants`/`clientWants` return whether an entity holds the role afterwards; undefined keeps what it has. */
function plan(world: RoleWorld, from: string, to: string, channelWants: (id: string) => boolean | undefined, clientWants: (id: string) => boolean | undefined): RolePlan {
  const changes: RoleChanges = { channels: [], clients: [] };
  const channels = live(world).map((c) => {
    const allow = nextList(c.allow, from, to, channelWants(c._id) ?? c.allow.includes(from));
    if (!sameList(allow, c.allow)) changes.channels.push({ _id: c._id, allow });
    return { ...c, allow };
  });
  const clients = world.clients.map((c) => {
    const roles = nextList(c.roles, from, to, clientWants(c._id) ?? c.roles.includes(from));
    if (!sameList(roles, c.roles)) changes.clients.push({ _id: c._id, roles });
    return { ...c, roles };
  });
  return { ok: true, changes, role: roleView({ channels, clients }, to) };
}

/** Refuses a name that is already a role or a client id (channel `allow` mixes both, so a clash would be ambiguous). */
function nameProblem(world: RoleWorld, name: string): RolePlan | null {
  if (roleNames(world).includes(name)) return refuse('CONFLICT', 'body.name', `a role named ${name} already exists`);
  if (world.clients.some((c) => c.clientID === name)) {
    return refuse('CONFLICT', 'body.name', `${name} is a client id; choose a role name that no client uses as its clientID`);
  }
  return null;
}

function withReferences(world: RoleWorld, input: RoleInput, build: (channels: Set<string> | undefined, clients: Set<string> | undefined) => RolePlan): RolePlan {
  try {
    const channels = input.channels === undefined ? undefined : resolveChannels(world, input.channels);
    const clients = input.clients === undefined ? undefined : resolveClients(world, input.clients);
    return build(channels, clients);
  } catch (err) {
    if (err instanceof UnknownReference) return refuse('VALIDATION_FAILED', err.path, err.message);
    throw err;
  }
}

/** Refuses giving role `role` to the client whose clientID it is (only data stored before the rule can lead here). */
function selfHolder(world: RoleWorld, refs: readonly ClientRef[] | undefined, role: string): RolePlan | null {
  const index = (refs ?? []).findIndex((ref) => (ref._id !== undefined ? world.clients.find((c) => c._id === ref._id) : world.clients.find((c) => c.clientID === ref.clientID))?.clientID === role);
  if (index < 0) return null;
  return refuse('VALIDATION_FAILED', `body.clients.${index}`, `is the client whose clientID is ${role}; a client cannot hold its own clientID as a role`);
}

/** POST: a new role needs a name that is free and at least one channel or client (rules 1 and 2). */
export function planCreateRole(world: RoleWorld, input: RoleInput): RolePlan {
  const name = input.name;
  if (name === undefined) return refuse('VALIDATION_FAILED', 'body.name', 'is required');
  if ((input.channels?.length ?? 0) + (input.clients?.length ?? 0) === 0) {
    return refuse('VALIDATION_FAILED', 'body', 'must list at least one channel or client: a role exists only while something uses it');
  }
  const clash = nameProblem(world, name);
  if (clash !== null) return clash;
  return withReferences(world, input, (channels, clients) => plan(world, name, name, (id) => channels?.has(id) ?? false, (id) => clients?.has(id) ?? false));
}

/** PUT: given arrays are complete lists, omitted ones stay, both empty deletes, a new name renames (rules 2-6). */
export function planUpdateRole(world: RoleWorld, name: string, input: RoleInput): RolePlan {
  if (findRole(world, name) === null) return refuse('NOT_FOUND', 'params.name', `no role named ${name}`);
  const to = input.name ?? name;
  if (to !== name) {
    const clash = nameProblem(world, to);
    if (clash !== null) return clash;
  }
  return withReferences(world, input, (channels, clients) => selfHolder(world, input.clients, to) ?? plan(world, name, to, (id) => channels?.has(id), (id) => clients?.has(id)));
}

/** DELETE: the role leaves every channel and client. */
export function planDeleteRole(world: RoleWorld, name: string): RolePlan {
  if (findRole(world, name) === null) return refuse('NOT_FOUND', 'params.name', `no role named ${name}`);
  return plan(world, name, name, () => false, () => false);
}

/** A client as a write to the clients API would leave it; `_id` is absent for a new one. */
export interface ClientRolesInput {
  _id?: string;
  clientID: string;
  roles: readonly string[];
}

/**
 * Why a client may not have this clientID and these roles, or null: it holds its own clientID as a role (400), its
 * clientID is a role another client holds, or one of its roles is another client's clientID (409). `sent` says which
 * of the two fields the request sets: only those are checked, so an edit of other fields is not refused for a
 * clash stored before these rules. Paths name the request's fields (`body.clientID`, `body.roles.<i>`).
 */
export function clientRolesProblem(clients: readonly RoleClient[], client: ClientRolesInput, sent: { clientID: boolean; roles: boolean }): RoleProblem | null {
  const own = client.roles.indexOf(client.clientID);
  if (own >= 0 && sent.roles) {
    return { code: 'VALIDATION_FAILED', path: `body.roles.${own}`, message: `is this client's own clientID; a client cannot hold its own clientID as a role, or channel allow lists could not tell the client from the role` };
  }
  if (own >= 0 && sent.clientID) {
    return { code: 'VALIDATION_FAILED', path: 'body.clientID', message: `is one of this client's roles; a client cannot hold its own clientID as a role, so choose another clientID or remove the role` };
  }
  const others = clients.filter((c) => c._id !== client._id);
  if (sent.clientID && others.some((c) => c.roles.includes(client.clientID))) {
    return { code: 'CONFLICT', path: 'body.clientID', message: 'is already a role name; choose another clientID' };
  }
  const index = sent.roles ? client.roles.findIndex((role) => others.some((c) => c.clientID === role)) : -1;
  if (index >= 0) return { code: 'CONFLICT', path: `body.roles.${index}`, message: "is another client's clientID; choose another role name" };
  return null;
}
