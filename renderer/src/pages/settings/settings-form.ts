/**
 * The settings page's decisions, without React: the fields of each section, a section's draft from the server's
 * answer, what a save sends (only what changed; a secret left blank is kept), the checks made before sending, and
 * where each value comes from in words.
 */
import type { ClinicSetting, ClinicSettingKey, ClinicSettingsInput, ClinicSettingSource } from '../../../../service/contracts/settings';

export type FieldKind = 'text' | 'number' | 'switch' | 'secret' | 'select';

export interface SettingField {
  key: ClinicSettingKey;
  label: string;
  kind: FieldKind;
  description?: string;
  /** For `number`. */
  min?: number;
  max?: number;
  /** For `select`. */
  options?: { value: string; label: string }[];
  /** For `text`: an http or https URL, or an email address, when set. */
  format?: 'url' | 'email';
  placeholder?: string;
}

export interface SettingsSectionSpec {
  id: 'email' | 'sms' | 'links' | 'backup';
  title: string;
  /** The save button's words. */
  save: string;
  intro: string;
  fields: SettingField[];
  /** The Test button's method, if the section has one. */
  test?: 'email' | 'sms';
}

export const SECTIONS: SettingsSectionSpec[] = [
  {
    id: 'email',
    title: 'Email (SMTP)',
    save: 'Save email settings',
    intro: 'Alerts, reports and invitations to set a password are sent through this mail server.',
    test: 'email',
    fields: [
      { key: 'email.smtp.host', label: 'SMTP server', kind: 'text', description: 'Host name of the mail server; empty sends no email', placeholder: 'smtp.clinic.example' },
      { key: 'email.smtp.port', label: 'Port', kind: 'number', min: 1, max: 65535, description: '587 with STARTTLS, 465 with TLS, 25 for a relay' },
      { key: 'email.smtp.secure', label: 'TLS from the first byte (port 465)', kind: 'switch' },
      { key: 'email.smtp.requireTLS', label: 'Refuse to send unless the connection is encrypted (STARTTLS)', kind: 'switch' },
      { key: 'email.smtp.rejectUnauthorized', label: "Check the server's certificate", kind: 'switch' },
      { key: 'email.smtp.user', label: 'User name', kind: 'text', description: 'Empty sends without signing in' },
      { key: 'email.smtp.password', label: 'Password', kind: 'secret' },
      { key: 'email.fromAddress', label: 'Sender address', kind: 'text', format: 'email', placeholder: 'Junction <junction@clinic.example>' },
      { key: 'email.smtp.timeoutSeconds', label: 'Timeout (seconds)', kind: 'number', min: 1, max: 600 },
    ],
  },
  {
    id: 'sms',
    title: 'SMS gateway',
    save: 'Save SMS settings',
    intro: 'SMS alerts are sent as one HTTP POST per message to this gateway.',
    test: 'sms',
    fields: [
      { key: 'sms.gatewayUrl', label: 'Gateway URL', kind: 'text', format: 'url', description: 'Empty sends no SMS', placeholder: 'https://sms.example/api/send' },
      { key: 'sms.format', label: 'Body format', kind: 'select', options: [{ value: 'json', label: 'JSON' }, { value: 'form', label: 'Form (URL-encoded)' }] },
      { key: 'sms.toField', label: 'Phone number field', kind: 'text' },
      { key: 'sms.textField', label: 'Message text field', kind: 'text' },
      { key: 'sms.from', label: 'Sender id', kind: 'text', description: 'Sent as "from" if the gateway needs one' },
      { key: 'sms.authorization', label: 'Authorization header', kind: 'secret', description: 'Such as Bearer followed by the key' },
      { key: 'sms.timeoutSeconds', label: 'Timeout (seconds)', kind: 'number', min: 1, max: 600 },
    ],
  },
  {
    id: 'links',
    title: 'Links in messages',
    save: 'Save console address',
    intro: 'Alerts, reports and invitations link to the console at this address.',
    fields: [{ key: 'alerts.consoleURL', label: 'Console address', kind: 'text', format: 'url', description: 'The address other computers reach the console at; empty guesses it', placeholder: 'https://junction.clinic.example:8080' }],
  },
  {
    id: 'backup',
    title: 'Scheduled backups',
    save: 'Save backup schedule',
    intro: 'A backup of the whole appliance is written to this folder on this schedule.',
    fields: [
      { key: 'backup.folder', label: 'Backup folder', kind: 'text', description: 'Ideally on another disk; empty turns scheduled backups off', placeholder: '/srv/junction-backups' },
      { key: 'backup.schedule', label: 'Schedule', kind: 'text', description: 'A cron expression such as 0 2 * * * (02:00 daily) or an interval such as 12 hours' },
      { key: 'backup.keep', label: 'Backups kept', kind: 'number', min: 1, max: 1000 },
    ],
  },
];

/** A field's value as the form holds it: text for text, numbers and secrets, a flag for switches. */
export type DraftValue = string | boolean;
export type Draft = Partial<Record<ClinicSettingKey, DraftValue>>;

export function byKey(settings: readonly ClinicSetting[]): Map<ClinicSettingKey, ClinicSetting> {
  return new Map(settings.map((s) => [s.key, s]));
}

/** The form's starting values: the values in force; secrets start blank (blank keeps the one in force). */
export function draftOf(section: SettingsSectionSpec, settings: ReadonlyMap<ClinicSettingKey, ClinicSetting>): Draft {
  const draft: Draft = {};
  for (const field of section.fields) {
    const value = settings.get(field.key)?.value;
    draft[field.key] = field.kind === 'switch' ? value === true : field.kind === 'secret' || value === undefined ? '' : String(value);
  }
  return draft;
}

/** What to send: the fields whose value differs from the one in force, typed as the API takes them; a blank secret is left out. */
export function changesOf(section: SettingsSectionSpec, draft: Draft, settings: ReadonlyMap<ClinicSettingKey, ClinicSetting>): ClinicSettingsInput {
  const changes: ClinicSettingsInput = {};
  for (const field of section.fields) {
    const value = draft[field.key];
    if (value === undefined) continue;
    const current = settings.get(field.key)?.value;
    if (field.kind === 'secret') {
      if (typeof value === 'string' && value !== '') changes[field.key] = value;
    } else if (field.kind === 'switch') {
      if (value !== current) changes[field.key] = value === true;
    } else if (field.kind === 'number') {
      const n = Number(value);
      if (n !== current) changes[field.key] = typeof value === 'string' && value.trim() !== '' && Number.isFinite(n) ? n : String(value);
    } else if (value !== (current ?? '')) {
      changes[field.key] = String(value).trim();
    }
  }
  return changes;
}

const EMAIL_IN = /[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+/;

/** Problems found before sending, by key; the server checks the rest (between keys, the cron expression). */
export function draftProblems(section: SettingsSectionSpec, draft: Draft): Partial<Record<ClinicSettingKey, string>> {
  const problems: Partial<Record<ClinicSettingKey, string>> = {};
  for (const field of section.fields) {
    const value = draft[field.key];
    if (typeof value !== 'string') continue;
    const text = value.trim();
    if (field.kind === 'number') {
      const n = Number(text);
      if (text === '' || !Number.isInteger(n) || n < (field.min ?? -Infinity) || n > (field.max ?? Infinity)) problems[field.key] = `Must be a whole number from ${String(field.min)} to ${String(field.max)}`;
    } else if (field.format === 'url' && text !== '' && !/^https?:\/\/[^\s/]+/i.test(text)) {
      problems[field.key] = 'Must be an http:// or https:// address';
    } else if (field.format === 'email' && text !== '' && !EMAIL_IN.test(text)) {
      problems[field.key] = 'Must be an email address, optionally with a name: Junction <junction@clinic.example>';
    }
  }
  if (section.id === 'email' && typeof draft['email.smtp.host'] === 'string' && draft['email.smtp.host'].trim() !== '' && draft['email.fromAddress'] === '') {
    problems['email.fromAddress'] ??= 'Must be set when an SMTP server is set';
  }
  return problems;
}

const SOURCE_WORDS: Record<ClinicSettingSource, string> = { console: 'Saved here', file: 'From the configuration file', default: 'Default' };

/** Where a value comes from, in words. */
export function sourceText(source: ClinicSettingSource): string {
  return SOURCE_WORDS[source];
}
