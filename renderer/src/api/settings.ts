/** Typed calls of the settings routes (admins): email, SMS, the console's address in links and backups, saved over the file's. */
import type { ClinicSettingsAnswer, ClinicSettingsInput, ClinicSettingsTestAnswer } from '../../../service/contracts/settings';
import type { AlertMethod } from '../../../service/contracts/channels';
import { api } from './client';

/** Every setting with its value in force and where it comes from (`GET /settings`). */
export function getSettings(signal?: AbortSignal): Promise<ClinicSettingsAnswer> {
  return api.get<ClinicSettingsAnswer>('/settings', undefined, signal);
}

/** Saves values (`PUT /settings`); null returns a key to the configuration file's value. */
export function saveSettings(input: ClinicSettingsInput): Promise<ClinicSettingsAnswer> {
  return api.put<ClinicSettingsAnswer>('/settings', input);
}

/** Sends one test message with a form's values, not saved (`POST /settings/:method/test`). */
export function testSettings(method: AlertMethod, to: string, settings: ClinicSettingsInput): Promise<ClinicSettingsTestAnswer> {
  return api.post<ClinicSettingsTestAnswer>(`/settings/${method}/test`, { to, settings });
}
