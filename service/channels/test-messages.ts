/**
 * "Send test message" (issue 36): what an administrator wrote or confirmed in the console, sent through a channel
 * as a real transaction (stored, routed, completed as a sender's would be) and marked with the property
 * `test: "true"` from its first write, so lists, exports and alerts can tell it apart. Nothing is added to the body.
 */
import { AppError } from '../errors.js';
import { invalidInput } from '../refusals.js';
import { TEST_MESSAGE_PROPERTY } from '../contracts/channels.js';
import type { TestMessageAnswer, TestMessageBody } from '../contracts/channels.js';
import { testMessagePlan } from '../domain/channels/test-message.js';
import type { TestRequest } from '../domain/channels/test-message.js';
import type { ChannelRecord } from '../storage/records.js';
import type { TransactionRecord } from '../storage/transactions.js';

/** What a test message is sent as: the plan's request, the body, who sent it and the marking properties. */
export interface TestSend extends TestRequest {
  body: Buffer;
  clientIp: string;
  properties: Record<string, string>;
}

export interface TestMessagesOptions {
  /**
   * Sends through the channel as a new transaction (pipeline/replay.ts `Replays.test`): resolves with its id at once,
   * and `done` with the stored transaction once final.
   */
  send: (channel: ChannelRecord, input: TestSend) => { id: string; done: Promise<TransactionRecord | null> };
  /** The stored transaction, for an answer given before it finished. */
  get: (id: string) => Promise<TransactionRecord | null>;
  /**
   * Longest the answer waits for the transaction to finish; a channel's timeout may be an hour. Past it the answer
   * says `Processing` and links to the transaction, which finishes (and is logged) on its own.
   */
  waitMs: number;
}

export class TestMessages {
  readonly #options: TestMessagesOptions;

  constructor(options: TestMessagesOptions) {
    this.#options = options;
  }

  /** Sends `body` through `channel` from `clientIp`; refuses (400, 409) before anything is stored when it cannot go. */
  async send(channel: ChannelRecord, body: TestMessageBody, clientIp: string): Promise<TestMessageAnswer> {
    const plan = testMessagePlan(channel, body);
    if (!plan.ok) throw plan.code === 'VALIDATION_FAILED' ? invalidInput(plan.problems) : new AppError(plan.code, plan.message);
    const { id, done } = this.#options.send(channel, { ...plan.request, body: Buffer.from(body.body, 'utf8'), clientIp, properties: { [TEST_MESSAGE_PROPERTY]: 'true' } });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), this.#options.waitMs);
      timer.unref();
    });
    // A failure after the answer went is the pipeline's to log, as for any transaction.
    void done.catch(() => undefined);
    const finished = await Promise.race([done, late]);
    clearTimeout(timer);
    const stored = finished === 'late' ? await this.#options.get(id) : finished;
    if (stored === null) throw new AppError('STORE_UNAVAILABLE', `The test message's transaction ${id} could not be stored; the service log has the cause`);
    return {
      transactionId: stored._id,
      status: stored.status,
      ...(stored.response === undefined ? {} : { responseStatus: stored.response.status }),
      ...(stored.error === undefined ? {} : { error: stored.error.message }),
    };
  }
}
