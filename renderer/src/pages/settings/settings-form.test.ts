import { describe, expect, it } from 'vitest';
import type { ClinicSetting } from '../../../../service/contracts/settings';
import { SECTIONS, byKey, changesOf, draftOf, draftProblems, sourceText } from './settings-form';

const email = SECTIONS.find((s) => s.id === 'email')!;
const settings = byKey([
  { key: 'email.smtp.host', value: 'smtp.clinic.example', source: 'file', secret: false, fileValue: 'smtp.clinic.example' },
  { key: 'email.smtp.port', value: 587, source: 'default', secret: false, fileValue: 587 },
  { key: 'email.smtp.secure', value: false, source: 'default', secret: false },
  { key: 'email.smtp.requireTLS', value: true, source: 'default', secret: false },
  { key: 'email.smtp.rejectUnauthorized', value: true, source: 'default', secret: false },
  { key: 'email.smtp.user', value: '', source: 'default', secret: false },
  { key: 'email.smtp.password', set: true, source: 'console', secret: true },
  { key: 'email.smtp.timeoutSeconds', value: 30, source: 'default', secret: false },
  { key: 'email.fromAddress', value: 'junction@clinic.example', source: 'file', secret: false },
] satisfies ClinicSetting[]);

describe('the settings form', () => {
  it('starts from the values in force, secrets blank', () => {
    const draft = draftOf(email, settings);
    expect(draft['email.smtp.host']).toBe('smtp.clinic.example');
    expect(draft['email.smtp.port']).toBe('587');
    expect(draft['email.smtp.secure']).toBe(false);
    expect(draft['email.smtp.password']).toBe('');
  });

  it('sends only what changed, typed, and keeps a secret left blank', () => {
    const draft = { ...draftOf(email, settings), 'email.smtp.port': '2525', 'email.smtp.secure': true };
    expect(changesOf(email, draft, settings)).toEqual({ 'email.smtp.port': 2525, 'email.smtp.secure': true });
    expect(changesOf(email, { ...draft, 'email.smtp.password': 'new-secret' }, settings)).toMatchObject({ 'email.smtp.password': 'new-secret' });
    expect(changesOf(email, draftOf(email, settings), settings)).toEqual({});
  });

  it('finds what it can before sending', () => {
    const draft = { ...draftOf(email, settings), 'email.smtp.port': '70000', 'email.fromAddress': '' };
    expect(draftProblems(email, draft)).toEqual({ 'email.smtp.port': 'Must be a whole number from 1 to 65535', 'email.fromAddress': 'Must be set when an SMTP server is set' });
    expect(draftProblems(email, { ...draft, 'email.smtp.port': '25', 'email.fromAddress': 'Junction <junction@clinic.example>' })).toEqual({});
    const links = SECTIONS.find((s) => s.id === 'links')!;
    expect(draftProblems(links, { 'alerts.consoleURL': 'junction.local' })).toEqual({ 'alerts.consoleURL': 'Must be an http:// or https:// address' });
  });

  it('says where a value comes from', () => {
    expect(sourceText('console')).toBe('Saved here');
    expect(sourceText('file')).toBe('From the configuration file');
  });
});
