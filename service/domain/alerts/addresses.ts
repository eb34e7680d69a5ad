/** Where a message to a person can go: an email address, or a phone number for SMS (the MSISDN an SMS gateway takes). */
import type { AlertMethod } from '../../contracts/channels.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MSISDN = /^\+?[0-9]{6,15}$/;

/** The problem of `to` as an address for `method`, or null when it suits it. */
export function addressProblem(method: AlertMethod, to: string): string | null {
  if (method === 'email') return EMAIL.test(to) ? null : 'must be an email address';
  return MSISDN.test(to) ? null : 'must be a phone number: 6 to 15 digits, with an optional leading +';
}

/** A phone number as typed (`+254 700-000 000`) as a gateway takes it: the spaces, dashes, dots and brackets dropped. */
export function phoneNumber(text: string): string {
  return text.trim().replace(/[\s\-.()]/g, '');
}
