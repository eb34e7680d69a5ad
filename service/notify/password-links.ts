/**
 * Set-password links by email: an invited user, or one who asked for a reset, gets an email with the console link
 * (`<console>/#/set-password/<token>`, OpenHIM's route) through the outbox, so a mail server that is down delays the
 * link rather than losing it. The token travels only in the email; the record's bodies are dropped once it is sent.
 */
import type { PasswordTokenType } from '../contracts/api.js';
import type { Outbox } from './outbox.js';

/** What a set-password link sender is given (accounts/password-tokens.ts `PasswordLinkSender`). */
export interface PasswordLink {
  user: { email: string; firstname?: string };
  token: string;
  tokenType: PasswordTokenType;
  expiry: Date;
}

/** The email of one link. */
export function passwordLinkEmail(link: PasswordLink, console: string, instance: string): { subject: string; text: string; html: string } {
  const url = `${console}/#/set-password/${link.token}`;
  const invited = link.tokenType === 'newUser';
  const subject = invited ? `${instance}: set your password` : `${instance}: reset your password`;
  const greeting = link.user.firstname === undefined || link.user.firstname === '' ? 'Hello,' : `Hello ${link.user.firstname},`;
  const why = invited ? `An account was made for you (${link.user.email}) on ${instance}.` : `Someone asked to reset the password of ${link.user.email} on ${instance}.`;
  const until = `The link works once, until ${link.expiry.toISOString().replace('T', ' ').slice(0, 16)} UTC.`;
  const ignore = invited ? '' : 'If you did not ask for this, ignore this email: your password stays as it is.';
  const text = [greeting, '', why, 'Set your password here:', url, '', until, ...(ignore === '' ? [] : [ignore])].join('\n');
  const html = [
    `<p>${escapeHtml(greeting)}</p>`,
    `<p>${escapeHtml(why)}</p>`,
    `<p><a href="${escapeHtml(url)}">Set your password</a></p>`,
    `<p>${escapeHtml(until)}</p>`,
    ...(ignore === '' ? [] : [`<p>${escapeHtml(ignore)}</p>`]),
  ].join('\n');
  return { subject, text, html };
}

/** A `PasswordLinkSender` that records the link's email in the outbox; `console` is read when a link is sent. */
export function emailedPasswordLinks(outbox: Outbox, console: () => string, instance: string): (link: PasswordLink) => Promise<void> {
  return async (link) => {
    const email = passwordLinkEmail(link, console(), instance);
    await outbox.enqueue([{ kind: 'password', method: 'email', to: link.user.email, user: link.user.email, ...email }]);
  };
}

/** Text made safe inside HTML (names and addresses are user input). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
