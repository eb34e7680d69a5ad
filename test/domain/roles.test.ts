import { describe, expect, it } from 'vitest';
import { clientRolesProblem, findRole, listRoles, planCreateRole, planDeleteRole, planUpdateRole } from '../../service/domain/access/roles.js';
import type { RoleChanges, RolePlan, RoleWorld } from '../../service/domain/access/roles.js';

const world: RoleWorld = {
  channels: [
    { _id: 'c1', name: 'Lab results', status: 'enabled', allow: ['lab', 'his'] },
    { _id: 'c2', name: 'Admissions', status: 'disabled', allow: ['his', 'emr-1', '*'] },
    { _id: 'c3', name: 'Old feed', status: 'deleted', allow: ['lab', 'ghost'] },
    { _id: 'c4', name: 'Pharmacy', status: 'enabled', allow: [] },
  ],
  clients: [
    { _id: 'k1', clientID: 'emr-1', roles: ['his'] },
    { _id: 'k2', clientID: 'lims', roles: ['lab', 'his'] },
    { _id: 'k3', clientID: 'pharm', roles: [] },
  ],
};

function changes(plan: RolePlan): RoleChanges {
  if (!plan.ok) throw new Error(`refused: ${plan.problem.path} ${plan.problem.message}`);
  return plan.changes;
}

function problem(plan: RolePlan) {
  if (plan.ok) throw new Error('expected a refusal');
  return plan.problem;
}

describe('the roles view', () => {
  it('lists role names from live channels and clients, without client ids, the wildcard or deleted channels', () => {
    const roles = listRoles(world);
    expect(roles.map((r) => r.name)).toEqual(['his', 'lab']);
    expect(roles[0]).toEqual({
      name: 'his',
      channels: [
        { _id: 'c2', name: 'Admissions' },
        { _id: 'c1', name: 'Lab results' },
      ],
      clients: [
        { _id: 'k1', clientID: 'emr-1' },
        { _id: 'k2', clientID: 'lims' },
      ],
    });
    expect(findRole(world, 'lab')?.channels).toEqual([{ _id: 'c1', name: 'Lab results' }]);
    expect(findRole(world, 'ghost')).toBeNull();
    expect(findRole(world, 'emr-1')).toBeNull();
  });
});

describe('creating a role', () => {
  it('rule 1: needs at least one channel or client', () => {
    expect(problem(planCreateRole(world, { name: 'x' }))).toMatchObject({ code: 'VALIDATION_FAILED', path: 'body' });
    expect(problem(planCreateRole(world, { name: 'x', channels: [], clients: [] }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(problem(planCreateRole(world, { channels: [{ _id: 'c1' }] }))).toMatchObject({ code: 'VALIDATION_FAILED', path: 'body.name' });
  });

  it('rule 2: references channels by _id or name and clients by _id or clientID', () => {
    const plan = planCreateRole(world, { name: 'pharmacy', channels: [{ _id: 'c4' }, { name: 'Lab results' }], clients: [{ clientID: 'pharm' }, { _id: 'k1' }] });
    expect(changes(plan)).toEqual({
      channels: [
        { _id: 'c1', allow: ['lab', 'his', 'pharmacy'] },
        { _id: 'c4', allow: ['pharmacy'] },
      ],
      clients: [
        { _id: 'k1', roles: ['his', 'pharmacy'] },
        { _id: 'k3', roles: ['pharmacy'] },
      ],
    });
    expect(plan.ok && plan.role.channels.map((c) => c.name)).toEqual(['Lab results', 'Pharmacy']);
  });

  it('refuses unknown or deleted references, naming them', () => {
    expect(problem(planCreateRole(world, { name: 'x', channels: [{ _id: 'c1' }, { name: 'Nope' }] }))).toMatchObject({ code: 'VALIDATION_FAILED', path: 'body.channels.1' });
    expect(problem(planCreateRole(world, { name: 'x', channels: [{ _id: 'c3' }] }))).toMatchObject({ path: 'body.channels.0' });
    expect(problem(planCreateRole(world, { name: 'x', clients: [{ clientID: 'nobody' }] }))).toMatchObject({ path: 'body.clients.0' });
  });

  it('refuses an existing role name or a client id with a conflict', () => {
    expect(problem(planCreateRole(world, { name: 'lab', clients: [{ _id: 'k3' }] }))).toMatchObject({ code: 'CONFLICT', path: 'body.name' });
    expect(problem(planCreateRole(world, { name: 'pharm', clients: [{ _id: 'k3' }] }))).toMatchObject({ code: 'CONFLICT', path: 'body.name' });
    // A name only left on a deleted channel is free again.
    expect(planCreateRole(world, { name: 'ghost', clients: [{ _id: 'k3' }] }).ok).toBe(true);
  });
});

describe('updating a role', () => {
  it('answers NOT_FOUND for an unknown role', () => {
    expect(problem(planUpdateRole(world, 'nope', { clients: [] }))).toMatchObject({ code: 'NOT_FOUND' });
    expect(problem(planDeleteRole(world, 'ghost'))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('rule 3: a given array is the complete list', () => {
    const plan = planUpdateRole(world, 'his', { channels: [{ name: 'Pharmacy' }, { _id: 'c1' }] });
    expect(changes(plan)).toEqual({
      channels: [
        { _id: 'c2', allow: ['emr-1', '*'] },
        { _id: 'c4', allow: ['his'] },
      ],
      clients: [],
    });
  });

  it('rule 4: both arrays empty removes the role everywhere, like a deletion', () => {
    const update = changes(planUpdateRole(world, 'his', { channels: [], clients: [] }));
    expect(update).toEqual(changes(planDeleteRole(world, 'his')));
    expect(update.channels.map((c) => c._id)).toEqual(['c1', 'c2']);
    expect(update.clients).toEqual([
      { _id: 'k1', roles: [] },
      { _id: 'k2', roles: ['lab'] },
    ]);
    const after = planUpdateRole(world, 'his', { channels: [], clients: [] });
    expect(after.ok && after.role).toEqual({ name: 'his', channels: [], clients: [] });
  });

  it('rule 5: an omitted array leaves that side unchanged', () => {
    const plan = changes(planUpdateRole(world, 'lab', { clients: [{ clientID: 'pharm' }] }));
    expect(plan.channels).toEqual([]);
    expect(plan.clients).toEqual([
      { _id: 'k2', roles: ['his'] },
      { _id: 'k3', roles: ['lab'] },
    ]);
  });

  it('rule 6: a given name renames the role in place, never on deleted channels', () => {
    const plan = planUpdateRole(world, 'lab', { name: 'laboratory' });
    expect(changes(plan)).toEqual({
      channels: [{ _id: 'c1', allow: ['laboratory', 'his'] }],
      clients: [{ _id: 'k2', roles: ['laboratory', 'his'] }],
    });
    expect(plan.ok && plan.role.name).toBe('laboratory');
    // Renaming to the same name changes nothing.
    expect(changes(planUpdateRole(world, 'lab', { name: 'lab' }))).toEqual({ channels: [], clients: [] });
  });

  it('renames and replaces the lists in one step', () => {
    const plan = changes(planUpdateRole(world, 'lab', { name: 'laboratory', channels: [{ _id: 'c4' }], clients: [] }));
    expect(plan).toEqual({
      channels: [
        { _id: 'c1', allow: ['his'] },
        { _id: 'c4', allow: ['laboratory'] },
      ],
      clients: [{ _id: 'k2', roles: ['his'] }],
    });
  });

  it('refuses renaming onto an existing role or a client id', () => {
    expect(problem(planUpdateRole(world, 'lab', { name: 'his' }))).toMatchObject({ code: 'CONFLICT', path: 'body.name' });
    expect(problem(planUpdateRole(world, 'lab', { name: 'lims' }))).toMatchObject({ code: 'CONFLICT', path: 'body.name' });
    expect(problem(planUpdateRole(world, 'lab', { clients: [{ _id: 'zzz' }] }))).toMatchObject({ code: 'VALIDATION_FAILED', path: 'body.clients.0' });
  });
});

describe('a client\'s clientID and roles', () => {
  const both = { clientID: true, roles: true };

  it('may not hold its own clientID as a role (400, naming what was sent)', () => {
    expect(clientRolesProblem(world.clients, { clientID: 'ris', roles: ['his', 'ris'] }, both)).toMatchObject({ code: 'VALIDATION_FAILED', path: 'body.roles.1' });
    expect(clientRolesProblem(world.clients, { _id: 'k2', clientID: 'lab', roles: ['lab', 'his'] }, { clientID: true, roles: false })).toMatchObject({
      code: 'VALIDATION_FAILED',
      path: 'body.clientID',
    });
    // A clash stored before the rule does not block an edit of other fields.
    expect(clientRolesProblem(world.clients, { _id: 'k9', clientID: 'old', roles: ['old'] }, { clientID: false, roles: false })).toBeNull();
  });

  it('may not take a role another client holds as its clientID, nor hold another client\'s clientID (409)', () => {
    expect(clientRolesProblem(world.clients, { clientID: 'lab', roles: [] }, both)).toMatchObject({ code: 'CONFLICT', path: 'body.clientID' });
    expect(clientRolesProblem(world.clients, { clientID: 'ris', roles: ['x', 'pharm'] }, both)).toMatchObject({ code: 'CONFLICT', path: 'body.roles.1' });
    // Its own current values are not a clash with itself.
    expect(clientRolesProblem(world.clients, { _id: 'k2', clientID: 'lims', roles: ['lab', 'his'] }, both)).toBeNull();
  });

  it('is not given its own clientID through the roles API', () => {
    const legacy: RoleWorld = { ...world, clients: [...world.clients, { _id: 'k4', clientID: 'old', roles: ['old'] }] };
    expect(problem(planUpdateRole(legacy, 'old', { clients: [{ clientID: 'pharm' }, { clientID: 'old' }] }))).toMatchObject({ code: 'VALIDATION_FAILED', path: 'body.clients.1' });
    expect(changes(planUpdateRole(legacy, 'old', { clients: [{ clientID: 'pharm' }] })).clients).toEqual([
      { _id: 'k3', roles: ['old'] },
      { _id: 'k4', roles: [] },
    ]);
  });
});
