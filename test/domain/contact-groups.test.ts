/** The contact group rules (domain/alerts/contact-groups.ts): stored shape, refusals, which channels use a group, unknown ids. */
import { describe, expect, it } from 'vitest';
import { channelsUsingGroup, groupName, groupProblems, groupRecipients, unknownGroupRefs } from '../../service/domain/alerts/contact-groups.js';

describe('contact group rules', () => {
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
