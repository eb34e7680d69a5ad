/**
 * The `/ws` live feed: one websocket per signed-in console, authenticated by the session cookie. Frames fan out to
 * subscribers by type; a dropped connection comes back with backoff, and `onReconnect` listeners refetch whatever
 * they may have missed meanwhile.
 */
import type { LiveFrame } from '../../../service/contracts/live-feed';

// Distributes over the frame union: a member whose `type` is itself a union ('transaction.started' |
// 'transaction.completed') matches each of its types, which Extract<> would not.
type MatchFrame<F, T> = F extends { type: infer U } ? (T extends U ? F : never) : never;
type FrameOf<T extends LiveFrame['type']> = MatchFrame<LiveFrame, T>;
type Listener<T extends LiveFrame['type']> = (data: FrameOf<T>['data']) => void;
export type LiveState = 'connecting' | 'open' | 'closed';

const MAX_BACKOFF_MS = 15_000;

export class LiveFeedClient {
  #socket: WebSocket | null = null;
  #listeners = new Map<string, Set<(data: unknown) => void>>();
  #stateListeners = new Set<(state: LiveState) => void>();
  #reconnectListeners = new Set<() => void>();
  #state: LiveState = 'closed';
  #wanted = false;
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #everOpened = false;

  get state(): LiveState {
    return this.#state;
  }

  /** Opens the feed (and keeps it open) until `stop()`. */
  start(): void {
    this.#wanted = true;
    if (this.#socket === null) this.#connect();
  }

  stop(): void {
    this.#wanted = false;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#socket?.close(1000, 'signed out');
    this.#socket = null;
    this.#everOpened = false;
    this.#setState('closed');
  }

  on<T extends LiveFrame['type']>(type: T, listener: Listener<T>): () => void {
    let set = this.#listeners.get(type);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(type, set);
    }
    const wrapped = listener as (data: unknown) => void;
    set.add(wrapped);
    return () => set.delete(wrapped);
  }

  onState(listener: (state: LiveState) => void): () => void {
    this.#stateListeners.add(listener);
    return () => this.#stateListeners.delete(listener);
  }

  /** Called after the feed comes back from a drop, when events may have been missed. */
  onReconnect(listener: () => void): () => void {
    this.#reconnectListeners.add(listener);
    return () => this.#reconnectListeners.delete(listener);
  }

  #setState(state: LiveState): void {
    this.#state = state;
    for (const listener of this.#stateListeners) listener(state);
  }

  #connect(): void {
    const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(`${scheme}//${window.location.host}/ws`);
    this.#socket = socket;
    this.#setState('connecting');
    socket.addEventListener('open', () => {
      this.#attempt = 0;
      this.#setState('open');
      if (this.#everOpened) for (const listener of this.#reconnectListeners) listener();
      this.#everOpened = true;
    });
    socket.addEventListener('message', (event: MessageEvent) => {
      if (typeof event.data !== 'string') return;
      let frame: LiveFrame;
      try {
        frame = JSON.parse(event.data) as LiveFrame;
      } catch {
        return;
      }
      const set = this.#listeners.get(frame.type);
      if (set !== undefined) for (const listener of set) listener(frame.data);
    });
    socket.addEventListener('close', () => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      this.#setState('closed');
      if (!this.#wanted) return;
      const delay = Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.#attempt);
      this.#attempt += 1;
      this.#timer = setTimeout(() => {
        this.#timer = null;
        if (this.#wanted) this.#connect();
      }, delay);
    });
  }
}

export const live = new LiveFeedClient();
