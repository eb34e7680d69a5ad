/**
 * The services wing: the service modules the management API calls, each built once (the channel catalogue, client
 * accounts, roles, contact groups, mediators, re-run tasks, notifications, metrics, the visualizer's events).
 * Their reach into later parts is through functions given here: polling triggers, the listeners' states, the ports
 * bound so far.
 */
import { hostname } from 'node:os';
import { ChannelCatalogue } from '../channels/catalogue.js';
import { ChannelHistory } from '../channels/history.js';
import { ChannelStatuses } from '../channels/channel-status.js';
import { TestMessages } from '../channels/test-messages.js';
import type { SenderPorts } from '../domain/channels/channel-address.js';
import type { RefusalRecorder } from '../refused/recorder.js';
import { ClientAccounts } from '../accounts/clients.js';
import { Roles } from '../accounts/roles.js';
import { ContactGroups } from '../contacts/groups.js';
import { MediatorRegistry } from '../mediators/registry.js';
import { TaskQueue } from '../tasks/queue.js';
import { Notifications } from '../notify/notifications.js';
import { MetricsReader } from '../metrics/reader.js';
import { VisualizerRecorder } from '../visualizer/recorder.js';
import { SettingsTests } from '../settings/settings-tests.js';
import type { ClinicSettings } from '../settings/clinic-settings.js';
import type { Store } from '../storage/store.js';
import type { ChannelCache } from '../pipeline/channel-cache.js';
import { clockOf } from './core.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { Notify } from './notify.js';
import type { Pipelines } from './pipeline.js';
import type { Scheduling } from './schedulers.js';
import type { Transports } from './transports.js';
import type { Wing } from './lifecycle.js';

/** Longest wait for a test message's first try before `POST /notifications/test` answers with it pending. */
const TEST_MESSAGE_WAIT_MS = 20_000;

export interface Services {
  channels: ChannelCatalogue;
  contactGroups: ContactGroups;
  clients: ClientAccounts;
  roles: Roles;
  mediators: MediatorRegistry;
  tasks: TaskQueue;
  notifications: Notifications;
  metrics: MetricsReader;
  /** The visualizer's events of the last hour (`GET /events/:receivedTime`), recorded from the live event bus. */
  visualizer: VisualizerRecorder;
  /** The settings a clinic changes in the console (`/settings`), and their Test buttons. */
  clinicSettings: ClinicSettings;
  settingsTests: SettingsTests;
  /** Why email or SMS cannot be sent with the settings in force, or null. */
  notifyProblems: () => { email: string | null; sms: string | null };
  /** "Is it working?" per channel (`GET /channels/status`, issue 36). */
  channelStatuses: ChannelStatuses;
  /** The console's test messages through a channel (`POST /channels/:id/test-message`). */
  testMessages: TestMessages;
}

export interface ServiceParts {
  storage: Storage;
  store: Store;
  cache: ChannelCache;
  notify: Notify;
  pipelines: Pipelines;
  scheduling: Scheduling;
  transports: Transports;
  settings: ClinicSettings;
  refusals: RefusalRecorder;
}

/**
 * The transaction ports as bound, and the host senders reach this machine by: the host of the console's address
 * (`alerts.consoleURL`, or the LAN address guessed for it), as the one name an administrator already set or saw.
 */
function senderPorts(core: Core, transports: Transports): SenderPorts {
  const bound = transports.bound.listening().filter((p) => p.purpose === 'transactions');
  const { router } = core.config;
  let host = '';
  try {
    host = core.console.url === '' ? '' : new URL(core.console.url).hostname;
  } catch {
    // A console address that is not a URL leaves the machine's name to stand in.
  }
  return {
    host: host === '' ? hostname() || 'localhost' : host,
    routerHost: router.host,
    httpsPort: bound.find((p) => p.protocol === 'https')?.port ?? router.httpsPort,
    httpPort: bound.find((p) => p.protocol === 'http')?.port ?? router.httpPort,
  };
}

export function servicesWing(core: Core, parts: ServiceParts): Wing<Services> {
  const { config, logger, events, options } = core;
  const { storage, store, cache, notify, pipelines, scheduling, transports, settings } = parts;
  const history = new ChannelHistory(store.channelAudits);
  const contactGroups = new ContactGroups({ groups: store.contactGroups, channels: store.channels });
  const channels = new ChannelCatalogue({
    channels: store.channels,
    history,
    hasTransactions: (channelId) => storage.transactions.hasChannel(channelId),
    triggerPolling: (channelId) => scheduling.polling.trigger(channelId),
    servicePorts: () => transports.bound.claims(),
    listeners: { state: (id) => transports.listeners.state(id), settled: () => transports.listeners.settled() },
    unknownContactGroups: (ids) => contactGroups.unknown(ids),
  });
  const mediators = new MediatorRegistry({
    mediators: store.mediators,
    channels: store.channels,
    history,
    events,
    logger: logger.child({ component: 'mediators' }),
    offlineAfterMs: config.mediators.offlineAfterSeconds * 1000,
    ...clockOf(options),
  });
  // Re-run tasks as the API creates them; the task runner (a scheduled job) is woken for each.
  const tasks = new TaskQueue({ tasks: store.tasks, items: store.taskTransactions, channels: store.channels, log: pipelines.log, events, wake: () => scheduling.taskRunner.wake() });
  const visualizerLogger = logger.child({ component: 'visualizer' });
  const visualizer = new VisualizerRecorder({
    events,
    // From the pipeline's in-memory list first, without waiting: a store read (and deep copy) twice per transaction was
    // 5% of the proxy's CPU (issue 19's profile). Disabled or deleted channels are not in it and still come from the
    // store, as does any channel while the list is reloading after a write.
    channel: (id) => cache.peek(id) ?? store.channels.findById(id),
    ...clockOf(options),
    onError: (err) => visualizerLogger.error({ err }, 'a visualizer event could not be recorded'),
  }).attach();
  return {
    offers: {
      channels,
      contactGroups,
      clients: new ClientAccounts({ clients: store.clients, channels: store.channels }),
      roles: new Roles({ channels: store.channels, clients: store.clients }),
      mediators,
      tasks,
      notifications: new Notifications({ notifications: store.notifications, outbox: notify.outbox, delivery: notify.delivery, instance: config.alerts.himInstance, testWaitMs: TEST_MESSAGE_WAIT_MS }),
      metrics: new MetricsReader({ transactions: storage.transactions, minuteRetentionHours: config.metrics.minuteRetentionHours }),
      visualizer,
      clinicSettings: settings,
      settingsTests: new SettingsTests({ settings, trustedCAs: notify.trustedCAs, instance: config.alerts.himInstance, ...clockOf(options) }),
      notifyProblems: notify.problems,
      channelStatuses: new ChannelStatuses({
        transactions: storage.transactions,
        refusals: parts.refusals,
        listenerOf: (channel) => channels.listenerOf(channel),
        ports: () => senderPorts(core, transports),
        ...clockOf(options),
      }),
      testMessages: new TestMessages({
        send: (channel, input) => {
          const tx = scheduling.replays.newTransaction();
          return { id: tx.id, done: scheduling.replays.test(channel, tx, input) };
        },
        get: (id) => storage.transactions.get(id),
        waitMs: TEST_MESSAGE_WAIT_MS,
      }),
    },
  };
}
