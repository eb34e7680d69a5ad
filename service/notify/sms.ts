/**
 * SMS through an HTTP gateway: one POST per message to `sms.gatewayUrl`, the number and text in a JSON object or a
 * form, each value properly encoded (OpenHIM put the text into a Clickatell URL with only its first space escaped).
 * A 2xx answer means the gateway took it; anything else, or no answer in time, is a failed try.
 */
import { rootCertificates } from 'node:tls';
import { Agent, request } from 'undici';
import { DeliveryError } from './transport.js';
import type { MessageToSend, Transport } from './transport.js';

/** The `sms` settings (config/schema.ts). */
export interface SmsSettings {
  gatewayUrl: string;
  format: 'json' | 'form';
  toField: string;
  textField: string;
  from: string;
  authorization?: string | undefined;
  timeoutSeconds: number;
}

/** How much of a refusing gateway's answer the record keeps. */
const ANSWER_EXCERPT = 200;

/** The POST body for one message, and its content type. */
export function gatewayBody(settings: Pick<SmsSettings, 'format' | 'toField' | 'textField' | 'from'>, to: string, text: string): { contentType: string; body: string } {
  const fields: [string, string][] = [
    [settings.toField, to],
    [settings.textField, text],
  ];
  if (settings.from !== '') fields.push(['from', settings.from]);
  if (settings.format === 'form') return { contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(fields).toString() };
  return { contentType: 'application/json', body: JSON.stringify(Object.fromEntries(fields)) };
}

/** Sends SMS through the configured gateway. */
export class SmsTransport implements Transport {
  #settings: SmsSettings;
  #url: URL | null;
  #notSetUp: string | null;
  #agent: Agent;
  #timeoutMs: number;
  #trustedCAs: readonly string[];

  constructor(settings: SmsSettings, trustedCAs: readonly string[] = []) {
    this.#settings = settings;
    this.#trustedCAs = trustedCAs;
    const { url, problem } = gatewayOf(settings);
    this.#url = url;
    this.#notSetUp = problem;
    this.#timeoutMs = settings.timeoutSeconds * 1000;
    this.#agent = this.#agentFor(trustedCAs);
  }

  /** Why SMS cannot be sent with these settings, or null when it can be tried. */
  get problem(): string | null {
    return this.#notSetUp;
  }

  /** What is wrong with the gateway setting, as the needs-attention list names it, or null. */
  get missing(): string | null {
    return smsMissing(this.#settings);
  }

  /** Sends through new settings (saved in the console) from the next message on; sends in progress finish on the old agent. */
  useSettings(settings: SmsSettings): void {
    this.#settings = settings;
    const { url, problem } = gatewayOf(settings);
    this.#url = url;
    this.#notSetUp = problem;
    this.#timeoutMs = settings.timeoutSeconds * 1000;
    this.useTrustedCAs(this.#trustedCAs);
  }

  #agentFor(trustedCAs: readonly string[]): Agent {
    const timeoutMs = this.#timeoutMs;
    return new Agent({ connect: { ca: [...rootCertificates, ...trustedCAs], timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  }

  /** Checks the gateway against a new CA list from the next message on; the old agent closes after its sends. */
  useTrustedCAs(trustedCAs: readonly string[]): void {
    this.#trustedCAs = trustedCAs;
    const old = this.#agent;
    this.#agent = this.#agentFor(trustedCAs);
    void old.close().catch(() => undefined);
  }

  /** Posts one message to the gateway; rejects with a `DeliveryError` naming the status and the start of the answer. */
  async send(message: MessageToSend): Promise<void> {
    await this.sendAnswered(message);
  }

  /** Posts one message and resolves with the gateway's status and the start of its answer, for a test a person reads. */
  async sendAnswered(message: MessageToSend): Promise<string> {
    if (this.#url === null) throw new DeliveryError(this.#notSetUp ?? 'SMS is not set up', true);
    const { contentType, body } = gatewayBody(this.#settings, message.to, message.sms ?? message.text ?? message.subject);
    const headers: Record<string, string> = { 'content-type': contentType };
    if (this.#settings.authorization !== undefined) headers.authorization = this.#settings.authorization;
    let answer: Awaited<ReturnType<typeof request>>;
    try {
      answer = await request(this.#url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.#agent,
        signal: AbortSignal.timeout(this.#settings.timeoutSeconds * 1000),
      });
    } catch (err) {
      throw new DeliveryError(`the SMS gateway could not be reached: ${reason(err)}`, false, { cause: err });
    }
    const excerpt = await startOf(answer.body);
    if (answer.statusCode >= 200 && answer.statusCode < 300) return `${String(answer.statusCode)}${excerpt === '' ? '' : ` ${excerpt}`}`;
    throw new DeliveryError(`the SMS gateway answered ${answer.statusCode}${excerpt === '' ? '' : `: ${excerpt}`}`);
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}

/** The gateway's URL, or why SMS cannot be sent with `settings`. */
export function gatewayOf(settings: Pick<SmsSettings, 'gatewayUrl'>): { url: URL | null; problem: string | null } {
  const missing = smsMissing(settings);
  if (missing !== null) return { url: null, problem: `SMS is not set up (${missing})` };
  return { url: new URL(settings.gatewayUrl.trim()), problem: null };
}

/** What is wrong with the gateway setting (`sms.gatewayUrl is empty`), or null when it can be tried. */
export function smsMissing(settings: Pick<SmsSettings, 'gatewayUrl'>): string | null {
  const text = settings.gatewayUrl.trim();
  if (text === '') return 'sms.gatewayUrl is empty';
  const parsed = URL.canParse(text) ? new URL(text) : null;
  if (parsed === null || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) return 'sms.gatewayUrl is not an http or https URL';
  return null;
}

/** The first characters of an answer, reading no more of it than that needs (a gateway's answer may be long). */
async function startOf(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    // Breaking out of the loop ends the body stream, and with it the response.
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= ANSWER_EXCERPT * 4) break;
    }
  } catch {
    // A broken answer body changes nothing about the status already received.
  }
  return [...Buffer.concat(chunks).toString('utf8')].slice(0, ANSWER_EXCERPT).join('').trim();
}

/** A network failure as one line: the cause's code and message when undici wraps one. */
function reason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause: (Error & { code?: string }) | null = err.cause instanceof Error ? err.cause : null;
  const code = cause?.code ?? (err as Error & { code?: string }).code;
  const message = cause !== null && cause.message !== '' ? cause.message : err.message;
  return code === undefined ? message : `${message} (${code})`;
}
