import { describe, expect, it } from 'vitest';
import { adminOnly, canAddressUser, canCreateUser, canDeleteUser, canListUsers, canReadUser, canUpdateUser, canViewChannel, isAdmin } from '../../service/domain/access/permissions.js';

const admin = { _id: 'a', groups: ['admin'] };
const nurse = { _id: 'n', groups: ['nurses'] };
const other = { _id: 'o', groups: ['nurses'] };
const root = { _id: 'r', groups: ['admin'], builtin: true };

describe('user permissions', () => {
  it('admins may do everything except remove the super user', () => {
    expect(isAdmin(admin)).toBe(true);
    expect(canListUsers(admin).allowed).toBe(true);
    expect(canCreateUser(admin).allowed).toBe(true);
    expect(canUpdateUser(admin, other, { groups: ['admin'] }).allowed).toBe(true);
    expect(canDeleteUser(admin, other).allowed).toBe(true);
    expect(canDeleteUser(admin, root)).toMatchObject({ allowed: false, code: 'BUILTIN_USER_PROTECTED' });
    expect(canUpdateUser(admin, root, { groups: ['staff'] })).toMatchObject({ allowed: false, code: 'BUILTIN_USER_PROTECTED' });
    expect(canUpdateUser(admin, root, { groups: ['admin', 'staff'] }).allowed).toBe(true);
  });

  it('other users only read and change their own profile, never their groups', () => {
    expect(canListUsers(nurse).allowed).toBe(false);
    expect(canCreateUser(nurse).allowed).toBe(false);
    expect(canReadUser(nurse, nurse).allowed).toBe(true);
    expect(canReadUser(nurse, other).allowed).toBe(false);
    expect(canUpdateUser(nurse, nurse, {}).allowed).toBe(true);
    expect(canUpdateUser(nurse, nurse, { groups: ['nurses'] }).allowed).toBe(true);
    expect(canUpdateUser(nurse, nurse, { groups: ['nurses', 'admin'] }).allowed).toBe(false);
    expect(canUpdateUser(nurse, nurse, { passwordChangeRequired: true }).allowed).toBe(false);
    expect(canUpdateUser(nurse, nurse, { email: 'new@x.example' }).allowed).toBe(false);
    expect(canUpdateUser(nurse, other, {}).allowed).toBe(false);
    expect(canDeleteUser(nurse, nurse).allowed).toBe(false);
  });

  it('lets a user send back their own profile as fetched: groups in any order, the same email and flag, nulls', () => {
    const self = { _id: 'n', groups: ['nurses', 'ward-3'], email: 'nurse@clinic.example', passwordChangeRequired: false };
    expect(canUpdateUser(self, self, { groups: ['ward-3', 'nurses'], email: 'Nurse@Clinic.example', passwordChangeRequired: false }).allowed).toBe(true);
    expect(canUpdateUser(self, self, { groups: null, email: null, passwordChangeRequired: null }).allowed).toBe(true);
    expect(canUpdateUser(self, self, { groups: ['ward-3'] }).allowed).toBe(false);
    expect(canUpdateUser(self, self, { email: 'other@clinic.example' }).allowed).toBe(false);
    expect(canUpdateUser(self, self, { passwordChangeRequired: true }).allowed).toBe(false);
  });
});

describe('channel visibility', () => {
  const acls = { txViewAcl: ['lab'], txViewFullAcl: ['doctors'], txRerunAcl: ['support'] };
  it('shows a channel to admins and to members of any of its transaction ACL groups only', () => {
    expect(canViewChannel({ groups: ['admin'] }, { txViewAcl: [], txViewFullAcl: [], txRerunAcl: [] })).toBe(true);
    for (const group of ['lab', 'doctors', 'support']) expect(canViewChannel({ groups: [group] }, acls)).toBe(true);
    expect(canViewChannel({ groups: ['reception'] }, acls)).toBe(false);
  });
});

describe('admin-only work', () => {
  it('refuses everyone outside the admin group, naming the work', () => {
    expect(adminOnly(admin, 'delete channels')).toEqual({ allowed: true });
    expect(adminOnly(nurse, 'delete channels')).toMatchObject({ allowed: false, reason: 'Only admins can delete channels' });
  });
});

describe('addressing a user account by email', () => {
  const nurseByEmail = { email: 'nurse@clinic.example', groups: ['nurses'] };
  it('lets admins address any account and others only their own, in any letter case', () => {
    expect(canAddressUser({ email: 'root@clinic.example', groups: ['admin'] }, 'someone@clinic.example').allowed).toBe(true);
    expect(canAddressUser(nurseByEmail, 'Nurse@Clinic.example').allowed).toBe(true);
    expect(canAddressUser(nurseByEmail, 'doctor@clinic.example')).toMatchObject({ allowed: false, reason: 'You can only view or change your own user account' });
  });
});
