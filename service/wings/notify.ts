/** The notify wing: the outbox every message to a person is recorded in first, and its delivery by email and SMS. */
import { Outbox } from '../notify/outbox.js';
import { Delivery } from '../notify/delivery.js';
import { EmailTransport } from '../notify/email.js';
import { SmsTransport } from '../notify/sms.js';
import type { Store } from '../storage/store.js';
import type { Keystore } from '../keystore/keystore.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { Wing } from './lifecycle.js';

export interface Notify {
  /** Every message to a person (alerts, reports, test messages, set-password links) is recorded here first. */
  outbox: Outbox;
  /** Sends the outbox's messages; new messages wake it, its job (added with the schedulers) retries. */
  delivery: Delivery;
}

export function notifyWing(core: Core, storage: Storage, store: Store, keystore: Keystore): Wing<Notify> {
  const { config, logger } = core;
  const trustedCAs = keystore.trustedCAs();
  const email = new EmailTransport(config.email, trustedCAs);
  const sms = new SmsTransport(config.sms, trustedCAs);
  const delivery = new Delivery({
    notifications: store.notifications,
    transports: { email, sms },
    maxAttempts: config.notifications.maxAttempts,
    keepDays: config.notifications.keepDays,
    logger: logger.child({ component: 'notify' }),
    ...storage.claimer,
  });
  const outbox = new Outbox({ notifications: store.notifications, onQueued: () => delivery.wake() });
  keystore.onChange(({ trustedCAs: cas }) => {
    email.useTrustedCAs(cas);
    sms.useTrustedCAs(cas);
  });
  return {
    offers: { outbox, delivery },
    // Sends in progress are recorded before the store closes (the job's stop, again for a start that failed early).
    stop: () => delivery.stop(),
  };
}
