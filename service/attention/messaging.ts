/**
 * Whether email and SMS are set up, from the configuration (`email.*`, `sms.*`): the same reading the email and SMS
 * senders make (notify/email.ts, notify/sms.ts), for the needs-attention list and the console's warnings. When these
 * settings move into a store the console edits, this is the one function the attention wing swaps.
 */
import type { MessagingSetup } from '../domain/operations/attention.js';

export interface MessagingSettings {
  email: { fromAddress: string; smtp: { host: string } };
  sms: { gatewayUrl: string };
}

export function messagingFromConfig(settings: MessagingSettings): MessagingSetup {
  const host = settings.email.smtp.host.trim();
  const from = settings.email.fromAddress.trim();
  const email = host === '' ? 'email.smtp.host is empty' : from === '' ? 'email.fromAddress is empty' : null;
  const url = settings.sms.gatewayUrl.trim();
  const parsed = url === '' || !URL.canParse(url) ? null : new URL(url);
  const sms = url === '' ? 'sms.gatewayUrl is empty' : parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ? 'sms.gatewayUrl is not an http or https URL' : null;
  return { email, sms };
}
