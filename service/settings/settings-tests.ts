/**
 * The console's Test buttons (issue 35): one email or SMS sent now with the settings in force overlaid by a form's
 * values, before anything is saved, through a transport of its own (the delivery's are not touched), answering what
 * the server or gateway said. Not recorded in the outbox: nothing was saved, and the answer goes to the person
 * pressing the button.
 */
import { AppError } from '../errors.js';
import type { AlertMethod } from '../contracts/channels.js';
import type { ClinicSettingsInput, ClinicSettingsTestAnswer } from '../contracts/settings.js';
import { addressProblem, phoneNumber } from '../domain/alerts/addresses.js';
import { invalidInput } from '../refusals.js';
import { EmailTransport } from '../notify/email.js';
import { SmsTransport } from '../notify/sms.js';
import type { ClinicSettings } from './clinic-settings.js';

export interface SettingsTestsOptions {
  settings: ClinicSettings;
  /** Junction's trusted CAs, as the delivery's transports use them. */
  trustedCAs: () => readonly string[];
  /** `alerts.himInstance`, named in the message. */
  instance: string;
  /** Milliseconds since the epoch (the service's clock). */
  now?: () => number;
}

export class SettingsTests {
  readonly #o: SettingsTestsOptions;

  constructor(options: SettingsTestsOptions) {
    this.#o = options;
  }

  /** Sends one test to `to` by `method`; 400 for a bad address or settings, 502 with the server's answer when it refused. */
  async send(method: AlertMethod, input: { to: string; settings?: ClinicSettingsInput | undefined }, by: string): Promise<ClinicSettingsTestAnswer> {
    const to = method === 'sms' ? phoneNumber(input.to) : input.to.trim();
    const toProblem = addressProblem(method, to);
    const overlay = input.settings ?? {};
    const problems = [...(toProblem === null ? [] : [{ path: 'body.to', message: toProblem }]), ...this.#o.settings.problems(overlay).map((p) => ({ ...p, path: p.path.replace(/^body\./, 'body.settings.') }))];
    if (problems.length > 0) throw invalidInput(problems);
    const effective = this.#o.settings.effective(overlay);
    const { instance } = this.#o;
    const at = new Date(this.#o.now?.() ?? Date.now()).toISOString().replace('T', ' ').slice(0, 19);
    const line = `This is a test of the ${method === 'email' ? 'email' : 'SMS'} settings of ${instance}, sent by ${by} at ${at} UTC from the console's Settings page.`;
    const transport = method === 'email' ? new EmailTransport(effective.email, this.#o.trustedCAs()) : new SmsTransport(effective.sms, this.#o.trustedCAs());
    if (transport.problem !== null) throw new AppError('BAD_REQUEST', `No test was sent: ${transport.problem}`);
    try {
      const response = await transport.sendAnswered({ to, subject: `${instance}: test of the ${method === 'email' ? 'email' : 'SMS'} settings`, text: line, sms: line });
      return { sent: true, to, response };
    } catch (err) {
      const problem = err instanceof Error ? err.message : String(err);
      throw new AppError('SETTINGS_TEST_FAILED', `The test ${method === 'email' ? 'email' : 'SMS'} to ${to} was not sent: ${problem}`, { method, to, problem });
    } finally {
      await transport.close().catch(() => undefined);
    }
  }
}
