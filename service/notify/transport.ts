/** What delivery needs of a way to reach people (email, SMS): one send per message, and a failure that says whether a later try can help. */

/** One message as a transport sends it. */
export interface MessageToSend {
  to: string;
  subject: string;
  /** Email bodies. */
  text?: string;
  html?: string;
  /** The SMS line. */
  sms?: string;
}

/** Sends one message; rejects with a `DeliveryError` (or any error, read as worth another try) when it was not accepted. */
export interface Transport {
  send(message: MessageToSend): Promise<void>;
  /** Releases connections; sends after this fail. */
  close(): Promise<void>;
}

/** A failed send. `permanent` failures are not tried again (nothing is set up to send with, say). */
export class DeliveryError extends Error {
  override readonly name = 'DeliveryError';
  constructor(
    message: string,
    readonly permanent = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Longest error text a record keeps. */
const MAX_ERROR_LENGTH = 500;

/** The text a record keeps of a failure, bounded. */
export function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}
