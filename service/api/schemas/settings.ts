/**
 * Request and response schemas of the settings a clinic changes in the console (`/settings`, issue 35). Each key's
 * value takes the type the configuration schema gives it (the same bounds and choices); its full check, against the
 * configuration it would make, is the settings module's.
 */
import { Type } from 'typebox';
import type { Static, TSchema } from 'typebox';
import { CLINIC_SETTING_KEYS } from '../../contracts/settings.js';
import { schemaAt } from '../../config/leaves.js';

const strict = { additionalProperties: false } as const;

/** The configuration schema of `key` without its default (a body never gets values it did not send) or its secret mark. */
function valueSchema(key: string): TSchema {
  const leaf = schemaAt(key);
  if (leaf === undefined) throw new Error(`no configuration key ${key}`);
  const { default: _default, secret: _secret, defaultText: _text, unavailable: _unavailable, ...rest } = leaf as Record<string, unknown>;
  return rest;
}

/** `PUT /settings`: the keys to change; null clears a saved value. */
export const SettingsBody = Type.Object(
  Object.fromEntries(CLINIC_SETTING_KEYS.map((key) => [key, Type.Optional(Type.Union([valueSchema(key), Type.Null()]))])),
  { ...strict, minProperties: 1 },
);
export type SettingsBody = Static<typeof SettingsBody>;

export const SettingsTestBody = Type.Object(
  {
    to: Type.String({ minLength: 1, maxLength: 254, description: 'the email address (email) or phone number (sms) the test goes to' }),
    settings: Type.Optional(SettingsBody),
  },
  strict,
);
export type SettingsTestBody = Static<typeof SettingsTestBody>;

const Value = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

export const ClinicSettingSchema = Type.Object({
  key: Type.String(),
  value: Type.Optional(Value),
  set: Type.Optional(Type.Boolean()),
  source: Type.Enum(['console', 'file', 'default']),
  fileValue: Type.Optional(Value),
  secret: Type.Boolean(),
  changedBy: Type.Optional(Type.String()),
  changed: Type.Optional(Type.String()),
});

const Readiness = Type.Object({ configured: Type.Boolean(), problem: Type.Optional(Type.String()) });

export const SettingsAnswer = Type.Object({ settings: Type.Array(ClinicSettingSchema), email: Readiness, sms: Readiness });

export const SettingsTestAnswer = Type.Object({ sent: Type.Literal(true), to: Type.String(), response: Type.String() });
