/** The notify wing: the outbox every message to a person is recorded in first, and its delivery by email and SMS. */
import { Outbox } from '../notify/outbox.js';
import { Delivery } from '../notify/delivery.js';
import { EmailTransport } from '../notify/email.js';
import { SmsTransport } from '../notify/sms.js';
import type { Store } from '../storage/store.js';
import type { Keystore } from '../keystore/keystore.js';
import type { ClinicSettings } from '../settings/clinic-settings.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { Wing } from './lifecycle.js';

export interface Notify {
  /** Every message to a person (alerts, reports, test messages, set-password links) is recorded here first. */
  outbox: Outbox;
  /** Sends the outbox's messages; new messages wake it, its job (added with the schedulers) retries. */
  delivery: Delivery;
  /** Whether email can be sent with the settings in force (SMTP host and sender set): for what needs attention. */
  mailConfigured: () => boolean;
  /** Whether SMS can be sent with the settings in force (an http or https gateway URL set). */
  smsConfigured: () => boolean;
  /** Why email or SMS cannot be sent with the settings in force, or null when it can be tried. */
  problems: () => { email: string | null; sms: string | null };
  /** Which setting email or SMS lacks (`email.smtp.host is empty`), for the needs-attention list. */
  missing: () => { email: string | null; sms: string | null };
  /** Trusted CAs for a test send with settings not yet saved (the console's Test button). */
  trustedCAs: () => readonly string[];
}

export function notifyWing(core: Core, storage: Storage, store: Store, keystore: Keystore, settings: ClinicSettings): Wing<Notify> {
  const { config, logger } = core;
  let trustedCAs = keystore.trustedCAs();
  const current = settings.effective();
  const email = new EmailTransport(current.email, trustedCAs);
  const sms = new SmsTransport(current.sms, trustedCAs);
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
    trustedCAs = cas;
    email.useTrustedCAs(cas);
    sms.useTrustedCAs(cas);
  });
  // Settings saved in the console (here or on another instance) apply from the next message on, without a restart.
  const stopSettings = settings.onChange((next) => {
    email.useSettings(next.email);
    sms.useSettings(next.sms);
    logger.info({ email: email.problem ?? 'ready', sms: sms.problem ?? 'ready' }, 'email and SMS settings changed');
  });
  return {
    offers: {
      outbox,
      delivery,
      mailConfigured: () => email.problem === null,
      smsConfigured: () => sms.problem === null,
      problems: () => ({ email: email.problem, sms: sms.problem }),
      missing: () => ({ email: email.missing, sms: sms.missing }),
      trustedCAs: () => trustedCAs,
    },
    // Sends in progress are recorded before the store closes (the job's stop, again for a start that failed early).
    stop: async () => {
      stopSettings();
      await delivery.stop();
    },
  };
}
