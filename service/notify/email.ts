/**
 * Email through an SMTP server (nodemailer's SMTP transport), from the `email.*` settings. One connection per
 * message: messages are few (alerts, reports, links) and a fresh connection never inherits a broken one.
 */
import { rootCertificates } from 'node:tls';
import type { Transporter } from 'nodemailer';
import { DeliveryError } from './transport.js';
import type { MessageToSend, Transport } from './transport.js';

/** The `email` settings (config/schema.ts). */
export interface EmailSettings {
  fromAddress: string;
  smtp: {
    host: string;
    port: number;
    secure: boolean;
    requireTLS: boolean;
    rejectUnauthorized: boolean;
    user: string;
    password?: string | undefined;
    timeoutSeconds: number;
  };
}

/** Sends email through the configured SMTP server. */
export class EmailTransport implements Transport {
  #from: string;
  /**
   * Made on the first message: nodemailer is loaded only then (dynamic import), since most installs send little or
   * no mail and loading it was part of every start (issue 19).
   */
  #transporter: Promise<Transporter> | null = null;
  #trustedCAs: readonly string[];
  #notSetUp: string | null;
  #settings: EmailSettings;

  constructor(settings: EmailSettings, trustedCAs: readonly string[] = []) {
    this.#settings = settings;
    this.#trustedCAs = trustedCAs;
    this.#from = settings.fromAddress.trim();
    this.#notSetUp = emailProblem(settings);
  }

  /** Why email cannot be sent with these settings, or null when it can be tried. */
  get problem(): string | null {
    return this.#notSetUp;
  }

  /** Which setting is missing, as the needs-attention list names it, or null. */
  get missing(): string | null {
    return emailMissing(this.#settings);
  }

  /** Sends with new settings (saved in the console) from the next message on; a message being sent finishes with the old. */
  useSettings(settings: EmailSettings): void {
    this.#settings = settings;
    this.#from = settings.fromAddress.trim();
    this.#notSetUp = emailProblem(settings);
    this.#dropTransporter();
  }

  #dropTransporter(): void {
    const old = this.#transporter;
    this.#transporter = null;
    // A transporter that failed to load has nothing to close.
    old?.then((transporter) => transporter.close()).catch(() => undefined);
  }

  /** Checks the SMTP server against a new CA list from the next message on. */
  useTrustedCAs(trustedCAs: readonly string[]): void {
    this.#trustedCAs = trustedCAs;
    this.#dropTransporter();
  }

  async #transporterFor(trustedCAs: readonly string[]): Promise<Transporter> {
    const { smtp } = this.#settings;
    const timeoutMs = smtp.timeoutSeconds * 1000;
    const { default: nodemailer } = await import('nodemailer');
    return nodemailer.createTransport({
      host: smtp.host.trim(),
      port: smtp.port,
      secure: smtp.secure,
      requireTLS: smtp.requireTLS,
      // Junction's trusted CAs (a private CA, say) are added to the system's rather than replacing them.
      tls: { rejectUnauthorized: smtp.rejectUnauthorized, ca: [...rootCertificates, ...trustedCAs], minVersion: 'TLSv1.2' },
      ...(smtp.user === '' ? {} : { auth: { user: smtp.user, pass: smtp.password ?? '' } }),
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      dnsTimeout: timeoutMs,
    });
  }

  /** Sends one email; rejects with a `DeliveryError` saying what the server or the connection answered. */
  async send(message: MessageToSend): Promise<void> {
    await this.sendAnswered(message);
  }

  /** Sends one email and resolves with the SMTP server's last answer (`250 ...`), for a test a person reads. */
  async sendAnswered(message: MessageToSend): Promise<string> {
    if (this.#notSetUp !== null) throw new DeliveryError(this.#notSetUp, true);
    this.#transporter ??= this.#transporterFor(this.#trustedCAs);
    const transporter = this.#transporter;
    try {
      const info = (await (await transporter).sendMail({
        from: this.#from,
        to: message.to,
        subject: message.subject,
        text: message.text ?? '',
        ...(message.html === undefined ? {} : { html: message.html }),
      })) as { response?: unknown };
      return typeof info.response === 'string' ? info.response : '';
    } catch (err) {
      throw new DeliveryError(`email not sent: ${smtpProblem(err)}`, false, { cause: err });
    }
  }

  async close(): Promise<void> {
    const transporter = this.#transporter;
    this.#transporter = null;
    (await transporter?.catch(() => undefined))?.close();
  }
}

/** Why email cannot be sent with `settings`, or null. */
export function emailProblem(settings: EmailSettings): string | null {
  const missing = emailMissing(settings);
  return missing === null ? null : `email is not set up (${missing})`;
}

/** Which setting email lacks (`email.smtp.host is empty`), or null when it can be tried. */
export function emailMissing(settings: Pick<EmailSettings, 'smtp' | 'fromAddress'>): string | null {
  if (settings.smtp.host.trim() === '') return 'email.smtp.host is empty';
  if (settings.fromAddress.trim() === '') return 'email.fromAddress is empty';
  return null;
}

/** nodemailer's error as one line: its message, with the SMTP code when the server answered. */
function smtpProblem(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const { code, responseCode } = err as Error & { code?: string; responseCode?: number };
  const tags = [code, responseCode === undefined ? undefined : `SMTP ${String(responseCode)}`].filter((t) => t !== undefined);
  return tags.length === 0 ? err.message : `${err.message} (${tags.join(', ')})`;
}
