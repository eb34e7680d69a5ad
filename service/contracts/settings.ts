/**
 * The settings a clinic changes in the console (`/settings`, issue 35): email, the SMS gateway, the console's
 * address in links and the backup schedule. Each is a key of the configuration file; a value saved through the API
 * overrides the file's (and the environment's) until it is cleared. Import with `import type` where only types are used.
 */

/** The keys the console may set, each the dotted name it has in the configuration file. */
export const CLINIC_SETTING_KEYS = [
  'email.fromAddress',
  'email.smtp.host',
  'email.smtp.port',
  'email.smtp.secure',
  'email.smtp.requireTLS',
  'email.smtp.rejectUnauthorized',
  'email.smtp.user',
  'email.smtp.password',
  'email.smtp.timeoutSeconds',
  'sms.gatewayUrl',
  'sms.format',
  'sms.toField',
  'sms.textField',
  'sms.from',
  'sms.authorization',
  'sms.timeoutSeconds',
  'alerts.consoleURL',
  'backup.folder',
  'backup.schedule',
  'backup.keep',
] as const;
export type ClinicSettingKey = (typeof CLINIC_SETTING_KEYS)[number];

/** The keys whose values are secrets: sealed at rest, never shown (only whether one is set). */
export const SECRET_SETTING_KEYS: readonly ClinicSettingKey[] = ['email.smtp.password', 'sms.authorization'];

/** A setting's value: text, a number or a switch. */
export type ClinicSettingValue = string | number | boolean;

/** Where the value in force comes from: saved in the console, the configuration file or environment, or the default. */
export type ClinicSettingSource = 'console' | 'file' | 'default';

/** One setting as `GET /settings` shows it. Secrets show `set` and no value. */
export interface ClinicSetting {
  key: ClinicSettingKey;
  /** The value in force; absent for a secret, and for a secret or optional key that has none. */
  value?: ClinicSettingValue;
  /** For secrets: whether one is in force. */
  set?: boolean;
  source: ClinicSettingSource;
  /** The value a "clear" returns to: the file's or environment's, or the default (absent for secrets). */
  fileValue?: ClinicSettingValue;
  secret: boolean;
  /** Who saved it in the console, and when (source `console` only). */
  changedBy?: string;
  changed?: string;
}

/** `GET /settings`: every setting, and whether email and SMS can send with the values in force. */
export interface ClinicSettingsAnswer {
  settings: ClinicSetting[];
  email: { configured: boolean; problem?: string };
  sms: { configured: boolean; problem?: string };
}

/** `PUT /settings`: the values to save; `null` clears a saved value (the file's value is in force again). Keys left out stay. */
export type ClinicSettingsInput = Partial<Record<ClinicSettingKey, ClinicSettingValue | null>>;

/**
 * `POST /settings/email/test` and `POST /settings/sms/test`: sends one message to `to` with the values in force
 * overlaid by `settings` (not saved), so a form can be tried before it is saved. A secret left out of `settings`
 * is the one in force.
 */
export interface ClinicSettingsTestInput {
  to: string;
  settings?: ClinicSettingsInput;
}

/** A test that was sent: what the server or gateway answered. */
export interface ClinicSettingsTestAnswer {
  sent: true;
  to: string;
  /** The SMTP server's last answer (`250 ...`), or the gateway's status. */
  response: string;
}
