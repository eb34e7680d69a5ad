/** The contact group rules (domain/alerts/contact-groups.ts): stored shape, refusals, which channels use a group, unknown ids. */
import { describe, expect, it } from 'vitest';
import { channelsUsingGroup, externalProblems, groupExternal, groupName, groupProblems, groupRecipients, unknownGroupRefs } from '../../service/domain/alerts/contact-groups.js';

describe('contact group rules', () => {
  it('stores external recipients trimmed, phone numbers without spaces or dashes, and refuses bad or repeated ones (issue 35)', () => {
    const external = groupExternal([
      { address: ' it@vendor.example ', method: 'email' },
      { address: '+254 (700) 000-001', method: 'sms', maxAlerts: '1 per day', _id: 'sub' },
    ]);
    expect(external).toEqual([
      { address: 'it@vendor.example', method: 'email', maxAlerts: 'no max' },
      { address: '+254700000001', method: 'sms', maxAlerts: '1 per day' },
    ]);
    expect(externalProblems(external)).toEqual([]);
    expect(externalProblems(groupExternal([{ address: 'vendor', method: 'email' }, { address: 'it@vendor.example', method: 'sms' }, { address: 'IT@vendor.example', method: 'email' }, { address: 'it@vendor.example', method: 'email' }]))).toEqual([
      { path: 'body.external.0.address', message: 'must be an email address' },
      { path: 'body.external.1.address', message: 'must be a phone number: 6 to 15 digits, with an optional leading +' },
      { path: 'body.external.3', message: 'repeats body.external.2 (the same address and method); list each recipient once' },
    ]);
  });

  it('trims names and recipients, and defaults maxAlerts to "no max" as OpenHIM does', () => {
    expect(groupName('  Lab  ')).toBe('Lab');
    expect(groupRecipients([{ user: ' a@x.example ', method: 'sms', _id: 'sub' }, { user: 'b@x.example', method: 'email', maxAlerts: '1 per day' }])).toEqual([
      { user: 'a@x.example', method: 'sms', maxAlerts: 'no max' },
      { user: 'b@x.example', method: 'email', maxAlerts: '1 per day' },
    ]);
  });

  it('refuses a blank name, a blank user, and the same user and method twice (any case), but not by two methods', () => {
    expect(groupProblems('', undefined).map((p) => p.path)).toEqual(['body.group']);
    expect(groupProblems(undefined, undefined)).toEqual([]);
    const users = groupRecipients([
      { user: 'a@x.example', method: 'sms' },
      { user: 'a@x.example', method: 'email' },
      { user: 'A@X.example', method: 'sms', maxAlerts: '1 per hour' },
      { user: '', method: 'sms' },
    ]);
    expect(groupProblems('Lab', users)).toEqual([
      { path: 'body.users.2', message: 'repeats body.users.0 (the same user and method); list each recipient once' },
      { path: 'body.users.3.user', message: 'must not be blank' },
    ]);
  });

  it('finds the channels whose alerts name a group, deleted ones included, by name', () => {
    const channels = [
      { _id: 'c1', name: 'Ward', status: 'enabled', alerts: [{ groups: ['g2'] }, { groups: ['g1'] }] },
      { _id: 'c2', name: 'ICU', status: 'deleted', alerts: [{ groups: ['g1'] }] },
      { _id: 'c3', name: 'Lab', status: 'enabled', alerts: [{ groups: [] }] },
    ];
    expect(channelsUsingGroup(channels, 'g1')).toEqual([{ _id: 'c2', name: 'ICU', status: 'deleted' }, { _id: 'c1', name: 'Ward', status: 'enabled' }]);
    expect(channelsUsingGroup(channels, 'g3')).toEqual([]);
  });

  it('names each unknown group id a write adds, at its body path, and lets through ids the channel already had', () => {
    const alerts = [{ groups: ['known', 'new-unknown'] }, { groups: ['old-unknown'] }];
    const problems = unknownGroupRefs(alerts, [{ groups: ['old-unknown'] }], new Set(['new-unknown', 'old-unknown']));
    expect(problems.map((p) => p.path)).toEqual(['body.alerts.0.groups.1']);
    expect(problems[0]?.message).toContain('new-unknown');
    expect(unknownGroupRefs(alerts, [], new Set())).toEqual([]);
  });
});
