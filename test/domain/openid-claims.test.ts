import { describe, expect, it } from 'vitest';
import { claimAt, claimedUser } from '../../service/domain/access/openid-claims.js';

const mapping = { emailClaim: 'email', nameClaim: 'name', groupsClaim: 'groups', adminGroups: ['ops'] };

describe('claimAt', () => {
  it('follows a dotted path, and finds keys that hold dots themselves', () => {
    const claims = { resource_access: { junction: { roles: ['a'] }, 'junction.clinic': { roles: ['b'] } }, 'x.y': 1 };
    expect(claimAt(claims, 'resource_access.junction.roles')).toEqual(['a']);
    expect(claimAt(claims, 'resource_access.junction.clinic.roles')).toEqual(['b']);
    expect(claimAt(claims, 'x.y')).toBe(1);
    expect(claimAt(claims, 'resource_access.nothing.roles')).toBeUndefined();
    expect(claimAt(claims, '')).toBeUndefined();
    expect(claimAt({ toString: 'x' }, 'constructor')).toBeUndefined();
  });
});

describe('claimedUser', () => {
  it('reads the email lower-cased, names from given/family or split from the full name, and maps admin groups', () => {
    expect(claimedUser({ email: ' Ada@Clinic.Example ', name: 'Ada King Lovelace', groups: ['ops', 'nurses', 'ops', 3] }, mapping)).toEqual({
      email: 'ada@clinic.example', firstname: 'Ada King', surname: 'Lovelace', groups: ['admin', 'nurses'],
    });
    expect(claimedUser({ email: 'b@c.example', given_name: 'Bea', family_name: 'Ode', groups: 'nurses' }, mapping)).toMatchObject({ firstname: 'Bea', surname: 'Ode', groups: ['nurses'] });
    expect(claimedUser({ email: 'c@c.example' }, mapping)).toMatchObject({ firstname: 'c', surname: '', groups: [] });
    expect(claimedUser({ email: 'c@c.example', groups: ['x'] }, { ...mapping, groupsClaim: '' })).toMatchObject({ groups: null });
  });

  it('names the problem when there is no usable email', () => {
    expect(claimedUser({ name: 'x' }, mapping)).toEqual({ problem: expect.stringMatching(/no email claim/) as string });
    expect(claimedUser({ email: 'not-an-email' }, mapping)).toEqual({ problem: expect.stringMatching(/not an email/) as string });
  });
});
