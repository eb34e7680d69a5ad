/**
 * How instances tell each other things: short text payloads on a topic, heard by every instance (the sender too),
 * lost while a listener is away. The change bus (notice-change-bus.ts) and the live relay (live-relay.ts) are built on
 * it; the shared database engine carries it (PostgreSQL: NOTIFY and one LISTENing connection).
 */

/** The topics the cluster uses. */
export type NoticeTopic = 'changes' | 'live';

/** A payload must stay below this many bytes (NOTIFY's limit is 8000, with room left for the channel name). */
export const MAX_NOTICE_BYTES = 7_500;

export interface Notices {
  /** Sends `payload` to every instance listening on `topic`; rejects when it could not be sent. */
  send(topic: NoticeTopic, payload: string): Promise<void>;
  /** Calls `handler` with each payload on `topic`; returns the way to stop. */
  on(topic: NoticeTopic, handler: (payload: string) => void): () => void;
  /** Calls `listener` each time listening resumed after a break (payloads sent meanwhile are gone). */
  onReconnect(listener: () => void): () => void;
}
