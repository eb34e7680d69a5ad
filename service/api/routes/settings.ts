/**
 * The settings a clinic changes in the console (issue 35), admins only: `GET /settings` lists each with its value in
 * force (secrets masked: only whether one is set) and where it comes from; `PUT /settings` saves values over the
 * configuration file's (null clears one, back to the file's); `POST /settings/email/test` and
 * `POST /settings/sms/test` send one message with a form's values before they are saved. Every save is logged with
 * who made it and which keys, never the values of secrets.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ClinicSettingsAnswer } from '../../contracts/settings.js';
import type { ClinicSettings } from '../../settings/clinic-settings.js';
import type { SettingsTests } from '../../settings/settings-tests.js';
import { requireAdmin } from '../guards.js';
import { NoQuery } from '../schemas/common.js';
import { SettingsAnswer, SettingsBody, SettingsTestAnswer, SettingsTestBody } from '../schemas/settings.js';

export interface SettingsRoutesDeps {
  clinicSettings: ClinicSettings;
  settingsTests: SettingsTests;
  /** Why email or SMS cannot be sent with the settings in force, or null. */
  notifyProblems: () => { email: string | null; sms: string | null };
}

function readiness(problem: string | null): { configured: boolean; problem?: string } {
  return problem === null ? { configured: true } : { configured: false, problem };
}

export function settingsRoutes(deps: SettingsRoutesDeps): FastifyPluginAsyncTypebox {
  const { clinicSettings, settingsTests } = deps;
  const answer = (): ClinicSettingsAnswer => {
    const problems = deps.notifyProblems();
    return { settings: clinicSettings.list(), email: readiness(problems.email), sms: readiness(problems.sms) };
  };

  return async (app) => {
    app.get('/settings', { schema: { querystring: NoQuery, response: { 200: SettingsAnswer } } }, (request) => {
      requireAdmin(request, 'see the settings');
      return answer();
    });

    app.put('/settings', { schema: { querystring: NoQuery, body: SettingsBody, response: { 200: SettingsAnswer } } }, async (request) => {
      const admin = requireAdmin(request, 'change the settings');
      const changed = await clinicSettings.save(request.body, admin.email);
      const cleared = Object.entries(request.body).filter(([, v]) => v === null).map(([k]) => k);
      request.log.info({ by: admin.email, changed, cleared }, 'settings changed in the console');
      return answer();
    });

    for (const method of ['email', 'sms'] as const) {
      app.post(`/settings/${method}/test`, { schema: { querystring: NoQuery, body: SettingsTestBody, response: { 200: SettingsTestAnswer } } }, async (request) => {
        const admin = requireAdmin(request, `test the ${method === 'email' ? 'email' : 'SMS'} settings`);
        const body = request.body;
        try {
          const sent = await settingsTests.send(method, body, admin.email);
          request.log.info({ by: admin.email, method, to: sent.to, response: sent.response }, 'settings test message sent');
          return sent;
        } catch (err) {
          request.log.warn({ by: admin.email, method, to: body.to, err: err instanceof Error ? err.message : String(err) }, 'settings test message not sent');
          throw err;
        }
      });
    }
  };
}
