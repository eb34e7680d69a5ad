/** What every wing is built from: the options the service was started with, and the parts with no lifecycle. */
import { hostname, networkInterfaces } from 'node:os';
import type { Logger } from 'pino';
import type { JunctionConfig } from '../config/index.js';
import type { LiveFeedOptions } from '../api/live-feed.js';
import type { JobTimers } from '../schedulers/timers.js';
import type { MeasureSpace } from '../disk/watcher.js';
import type { LiveEvents } from '../events/live.js';
import type { PrometheusMetrics } from '../metrics/prometheus.js';
import type { PortClaim } from '../domain/channels/channel-ports.js';
import type { ServicePort } from '../contracts/api.js';
import { consoleLinks } from '../notify/console-url.js';
import type { ConsoleLinks } from '../notify/console-url.js';

export interface JunctionOptions {
  config: JunctionConfig;
  logger: Logger;
  version: string;
  /** Tuning of the live feed websocket (tests shorten its ping interval). */
  liveFeed?: LiveFeedOptions;
  /** The built console to serve at `/`; by default renderer/dist beside the service, when it has been built. */
  consoleDir?: string | null;
  /** The manual's Markdown to serve at `/docs`; by default the docs/ folder beside the service. */
  docsDir?: string | null;
  /** Clock of the failed-login throttles and their audit summaries (tests move it on instead of waiting). */
  clock?: () => number;
  /** The clock scheduled jobs are planned on (polling channels, auto retry, retention...); tests move it by hand. */
  timers?: JobTimers;
  /** The log destinations failing now (logger.ts), for /health and /about. */
  logProblems?: () => string[];
  /** How the data folder's free space is measured (tests give a fake disk). */
  measureDisk?: MeasureSpace;
}

/** Given to every wing: the options, and the parts that need no opening or closing. */
export interface Core {
  options: JunctionOptions;
  config: JunctionConfig;
  logger: Logger;
  events: LiveEvents;
  prometheus: PrometheusMetrics;
  /** The IANA zone of metric buckets, alert and report times, and report schedules (`timeZone`, or the system's). */
  timeZone: string;
  /** The console's address for links in messages, known once the management API listens. */
  console: ConsoleAddress;
}

/** The configured zone, or the system's when none is set (config checks refuse an unknown name). */
export function resolvedTimeZone(configured: string): string {
  return configured === '' ? Intl.DateTimeFormat().resolvedOptions().timeZone : configured;
}

/** `{ now }` for a part that takes an optional clock, when the options carry one. */
export function clockOf(options: JunctionOptions): { now?: () => number } {
  return options.clock === undefined ? {} : { now: options.clock };
}

/** Periodic jobs of one wing (purges, summary flushes): unref'd, failures logged, all cleared by `halt`. */
export class Periodic {
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  every(ms: number, job: () => Promise<void>): void {
    const timer = setInterval(() => {
      job().catch((err: unknown) => this.#logger.error({ err }, 'a periodic job failed'));
    }, ms);
    timer.unref();
    this.#timers.push(timer);
  }

  halt(): void {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers.length = 0;
  }
}

/**
 * The console's address for links in messages: `alerts.consoleURL`, or the management API's own address once it
 * listens (the console is served there). Empty until then.
 */
export class ConsoleAddress {
  #links: ConsoleLinks = { url: '', configured: false };
  /** `alerts.consoleURL` as saved in the console or set in the file; null until the settings wing has read it. */
  #configured: string | null = null;
  #api: Parameters<typeof consoleLinks>[1] | null = null;

  get url(): string {
    return this.#links.url;
  }

  get links(): ConsoleLinks {
    return this.#links;
  }

  /** The address saved in the console (or the file's when cleared): links use it from the next message on. */
  useConfigured(url: string): void {
    this.#configured = url;
    if (this.#api !== null) this.#links = consoleLinks(url, this.#api);
  }

  /** Called once the API listens on `port`; warns when the address had to be guessed. */
  bound(config: JunctionOptions['config'], port: number, logger: Logger): void {
    this.#api = { protocol: config.api.protocol, host: config.api.host, port, machineName: hostname(), lanAddresses: lanAddresses() };
    this.#links = consoleLinks(this.#configured ?? config.alerts.consoleURL, this.#api);
    if (!this.#links.configured) {
      logger.warn({ consoleUrl: this.#links.url }, 'alerts.consoleURL is not set: links in alert, report and set-password emails use a guessed address; set it to the console address other machines reach');
    }
  }
}

/** The ports the service's own listeners hold once bound: none until the listen wing has bound them. */
export class BoundPorts {
  #claims: PortClaim[] = [];
  #listening: ServicePort[] = [];

  bound(claims: PortClaim[], listening: ServicePort[]): void {
    this.#claims = claims;
    this.#listening = listening;
  }

  /** The ports no tcp or tls channel may claim. */
  claims(): PortClaim[] {
    return this.#claims;
  }

  /** The service's listeners (API, transaction ports, audit repository), for `GET /about`. */
  listening(): ServicePort[] {
    return this.#listening;
  }
}

/** The URL a local client uses for a listener: a wildcard address is reached on loopback; IPv6 goes in brackets. */
export function localUrl(protocol: string, host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `${protocol}://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** The machine's LAN addresses (IPv4, not loopback), in the order the system lists its interfaces. */
function lanAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).filter((a) => a.family === 'IPv4' && !a.internal).map((a) => a.address));
}
