/**
 * The instances of one Junction installation: each registers and beats; `alive()` lists those whose beat is recent,
 * for `GET /about` and the console. On PostgreSQL (postgres-instances.ts) a survivor also claims each instance that
 * stopped beating, once across the cluster, and finishes what it left (its `Processing` transactions).
 */

/**
 * Which clock the cluster's times are written in: undefined means the shared database's own `now()` (instances on
 * different machines disagree about the time); tests pass a clock they move by hand.
 */
export type ClusterClock = (() => number) | undefined;

/** One running instance as the others see it. */
export interface InstanceInfo {
  id: string;
  /** The machine's name. */
  name: string;
  /** The management API's address as the instance itself sees it. */
  apiUrl: string;
  version: string;
  started: Date;
  lastBeat: Date;
}

/** What an instance says about itself when it registers. */
export type InstanceIdentity = Omit<InstanceInfo, 'started' | 'lastBeat'>;

export interface Instances {
  /** This instance's id, the tag on everything it announces to the others. */
  readonly id: string;
  /** Registers this instance and starts beating (and, on PostgreSQL, watching for instances that died). */
  start(apiUrl: string): Promise<void>;
  /** The instances whose last beat is recent, oldest start first. */
  alive(): Promise<InstanceInfo[]>;
  /** Stops beating and says this instance has left, so the others stop listing it. Safe to call twice. */
  stop(): Promise<void>;
}

/** The single instance of the embedded engine: it is alive while started, and nothing else ever is. */
export class EmbeddedInstances implements Instances {
  readonly id: string;
  readonly #identity: Omit<InstanceIdentity, 'apiUrl' | 'id'>;
  readonly #now: () => number;
  #self: InstanceInfo | null = null;

  constructor(id: string, identity: Omit<InstanceIdentity, 'apiUrl' | 'id'>, now: () => number = Date.now) {
    this.id = id;
    this.#identity = identity;
    this.#now = now;
  }

  async start(apiUrl: string): Promise<void> {
    const at = new Date(this.#now());
    this.#self = { id: this.id, ...this.#identity, apiUrl, started: at, lastBeat: at };
    return Promise.resolve();
  }

  async alive(): Promise<InstanceInfo[]> {
    // A process that answers is alive: its beat is now.
    return Promise.resolve(this.#self === null ? [] : [{ ...this.#self, lastBeat: new Date(this.#now()) }]);
  }

  async stop(): Promise<void> {
    this.#self = null;
    return Promise.resolve();
  }
}
