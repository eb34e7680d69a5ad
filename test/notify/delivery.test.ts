/**
 * Delivery's own rules, with transports the test controls: a send that never finishes (a crash mid-send) leaves the
 * message pending for the next process, at most four sends run at once, a message recorded during a run is sent by
 * that run, and the test message's wait for its first try. The real SMTP and HTTP paths are in email and sms tests.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Delivery } from '../../service/notify/delivery.js';
import { Outbox } from '../../service/notify/outbox.js';
import { DeliveryError } from '../../service/notify/transport.js';
import type { MessageToSend, Transport } from '../../service/notify/transport.js';
import { createNedbStore } from '../../service/storage/nedb/index.js';
import type { Store } from '../../service/storage/store.js';

const silent = pino({ level: 'silent' });

/** A transport whose sends wait until the test settles them. */
class HeldTransport implements Transport {
  readonly sent: MessageToSend[] = [];
  readonly waiting: { message: MessageToSend; accept: () => void; refuse: (err: Error) => void }[] = [];
  open = 0;
  maxOpen = 0;
  #arrived: (() => void)[] = [];

  send(message: MessageToSend): Promise<void> {
    this.open++;
    this.maxOpen = Math.max(this.maxOpen, this.open);
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        this.open--;
      };
      this.waiting.push({
        message,
        accept: () => {
          done();
          this.sent.push(message);
          resolve();
        },
        refuse: (err) => {
          done();
          reject(err);
        },
      });
      for (const arrived of this.#arrived.splice(0)) arrived();
    });
  }

  /** Resolves once `n` sends are waiting. */
  async waitingFor(n: number): Promise<void> {
    while (this.waiting.length < n) await new Promise<void>((resolve) => this.#arrived.push(resolve));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe('Delivery', () => {
  let dir: string;
  let store: Store;
  const now = new Date('2026-03-01T10:00:00Z');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'junction-delivery-'));
    store = createNedbStore({ dataDir: dir, logger: silent });
    await store.open();
  });
  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await store.notifications.removeMany({});
  });

  function setup(email: Transport) {
    const delivery = new Delivery({ notifications: store.notifications, transports: { email, sms: new HeldTransport() }, maxAttempts: 3, keepDays: 30, now: () => now, logger: silent });
    const outbox = new Outbox({ notifications: store.notifications, now: () => now, onQueued: () => delivery.wake() });
    return { delivery, outbox };
  }
  const message = (subject: string) => ({ kind: 'test' as const, method: 'email' as const, to: 'ada@clinic.example', subject, text: 'body' });

  it('leaves a message pending while its send has no answer, so the next process sends it (at least once)', async () => {
    const hung = new HeldTransport();
    const first = setup(hung);
    const [queued] = await first.outbox.enqueue([message('mid-send')]);
    await hung.waitingFor(1);
    // The process "crashes" here: the send never answers and nothing more happens in it.
    expect(await store.notifications.findById(queued?._id ?? '')).toMatchObject({ status: 'pending', attempts: 0, text: 'body' });

    const working = new HeldTransport();
    const second = setup(working);
    const run = second.delivery.run();
    await working.waitingFor(1);
    working.waiting[0]?.accept();
    await run;
    expect(await store.notifications.findById(queued?._id ?? '')).toMatchObject({ status: 'sent', attempts: 1 });
    // The first "process" is never answered: its send stays open, as a dead process's would.
  });

  it('sends at most four at once, and a message recorded during a run is sent by it', async () => {
    const held = new HeldTransport();
    const { delivery, outbox } = setup(held);
    await outbox.enqueue(Array.from({ length: 6 }, (_, i) => message(`m${i}`)));
    await held.waitingFor(4);
    expect(held.maxOpen).toBe(4);
    await outbox.enqueue([message('late')]);
    for (let settled = 0; settled < 7; settled++) {
      await held.waitingFor(settled + 1);
      held.waiting[settled]?.accept();
    }
    await delivery.run();
    expect(held.maxOpen).toBe(4);
    expect(held.sent.map((m) => m.subject).sort()).toEqual(['late', 'm0', 'm1', 'm2', 'm3', 'm4', 'm5']);
    expect(await store.notifications.count({ status: 'sent' })).toBe(7);
  });

  it('lets a caller wait for a message’s first outcome, or answers with it pending after the wait', async () => {
    const held = new HeldTransport();
    const { delivery, outbox } = setup(held);
    const [slow] = await outbox.enqueue([message('slow')]);
    await held.waitingFor(1);
    expect(await delivery.outcome(slow?._id ?? '', 20)).toMatchObject({ status: 'pending', attempts: 0 });

    const waiting = delivery.outcome(slow?._id ?? '', 10_000);
    held.waiting[0]?.refuse(new DeliveryError('server said no', true));
    expect(await waiting).toMatchObject({ status: 'failed', attempts: 1, lastError: 'server said no' });
    // Already tried: answered at once.
    expect(await delivery.outcome(slow?._id ?? '', 10_000)).toMatchObject({ status: 'failed' });
    expect(await delivery.outcome('000000000000000000000000', 10_000)).toBeNull();
  });
});
