/** The contact group editor's form model: stored group to form and back, and the problems found before saving. */
import { describe, expect, it } from 'vitest';
import type { ContactGroup } from '../../../../service/contracts/contact-groups';
import { createGroupBody, groupForm, groupProblems, newExternalRow, newRecipientRow, recipientWarnings, updateGroupBody } from './group-form';

const stored: ContactGroup = {
  _id: '65f0c0ffee00000000000001',
  group: 'Lab on call',
  users: [
    { user: 'nurse@clinic.example', method: 'email', maxAlerts: 'no max' },
    { user: 'tech@clinic.example', method: 'sms', maxAlerts: '1 per hour' },
  ],
};

const phones = new Map([
  ['nurse@clinic.example', false],
  ['tech@clinic.example', true],
]);

describe('contact group form', () => {
  it('round-trips a stored group: saving it unchanged sends nothing', () => {
    const form = groupForm(stored);
    expect(form.group).toBe('Lab on call');
    expect(form.users.map(({ user, method, maxAlerts }) => ({ user, method, maxAlerts }))).toEqual(stored.users);
    expect(new Set(form.users.map((u) => u.key)).size).toBe(2);
    expect(updateGroupBody(stored, form)).toEqual({});
  });

  it('sends a new name trimmed, and the whole recipient list when any recipient changes', () => {
    const form = groupForm(stored);
    form.group = '  Lab night shift ';
    expect(updateGroupBody(stored, form)).toEqual({ group: 'Lab night shift' });
    form.users[1] = { ...form.users[1]!, maxAlerts: '1 per day' };
    expect(updateGroupBody(stored, form).users).toEqual([
      { user: 'nurse@clinic.example', method: 'email', maxAlerts: 'no max' },
      { user: 'tech@clinic.example', method: 'sms', maxAlerts: '1 per day' },
    ]);
    form.users = [];
    expect(updateGroupBody(stored, form)).toEqual({ group: 'Lab night shift', users: [] });
  });

  it('builds the POST body for a new group', () => {
    const form = groupForm(null);
    form.group = ' Pharmacy ';
    form.users.push({ ...newRecipientRow(), user: ' tech@clinic.example ' });
    expect(createGroupBody(form)).toEqual({ group: 'Pharmacy', users: [{ user: 'tech@clinic.example', method: 'email', maxAlerts: 'no max' }] });
  });

  it('finds a blank name, a row without a user and a repeated recipient (the same user by another method is fine)', () => {
    const form = groupForm(null);
    form.group = '   ';
    form.users = [
      { ...newRecipientRow(), user: 'nurse@clinic.example' },
      { ...newRecipientRow(), user: '' },
      { ...newRecipientRow(), user: 'NURSE@clinic.example' },
      { ...newRecipientRow(), user: 'nurse@clinic.example', method: 'sms' },
    ];
    expect(groupProblems(form)).toEqual({
      group: 'Enter a name for the group',
      'users.1.user': 'Choose a user',
      'users.2.user': 'NURSE@clinic.example is already recipient 1 by email',
    });
    expect(groupProblems(groupForm(stored))).toEqual({});
  });

  it('warns about SMS to a user without a number, and does not judge users it does not know', () => {
    const form = groupForm(stored);
    form.users.push({ ...newRecipientRow(), user: 'Nurse@clinic.example', method: 'sms' });
    form.users.push({ ...newRecipientRow(), user: 'gone@clinic.example', method: 'sms' });
    expect(recipientWarnings(form, phones)).toEqual({ 2: 'Nurse@clinic.example has no mobile number yet, so SMS alerts cannot reach them' });
  });

  it('takes recipients who are not users: checked, sent normalised, and only when changed', () => {
    const form = groupForm(stored);
    expect(form.external).toEqual([]);
    expect(updateGroupBody(stored, form)).toEqual({});
    form.external = [
      { ...newExternalRow(), address: ' support@vendor.example ' },
      { ...newExternalRow(), address: '+254 700-000 001', method: 'sms' },
    ];
    expect(groupProblems(form)).toEqual({});
    const external = [
      { address: 'support@vendor.example', method: 'email', maxAlerts: 'no max' },
      { address: '+254700000001', method: 'sms', maxAlerts: 'no max' },
    ];
    expect(updateGroupBody(stored, form)).toEqual({ external });
    expect(updateGroupBody({ ...stored, external } as ContactGroup, form)).toEqual({});
    expect(groupForm({ ...stored, external } as ContactGroup).external.map((e) => e.address)).toEqual(['support@vendor.example', '+254700000001']);
    form.external.push({ ...newExternalRow(), address: 'vendor' }, { ...newExternalRow(), address: 'call me', method: 'sms' }, { ...newExternalRow(), address: 'SUPPORT@vendor.example' }, newExternalRow());
    expect(groupProblems(form)).toEqual({
      'external.2.address': 'Must be an email address, such as support@vendor.example',
      'external.3.address': 'Must be a mobile number: 6 to 15 digits, with an optional leading +',
      'external.4.address': 'SUPPORT@vendor.example is already other recipient 1 by email',
      'external.5.address': 'Enter an email address',
    });
  });
});
