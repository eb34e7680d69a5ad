/**
 * Change notifications between instances: a write to a collection that some instance holds in memory (channels,
 * clients, users, mediators, contact groups) or to the keystore is announced, with the ids it touched, so every other
 * instance drops or reloads what it holds. Ids rather than documents: NOTIFY's payload must stay under 8000 bytes,
 * and a document would carry secrets across the wire for nothing.
 */
import { MAX_NOTICE_BYTES } from './notices.js';

/** What an instance may hold in memory and must refresh when another instance writes it. */
export const CHANGE_KINDS = ['channels', 'clients', 'users', 'mediators', 'contactGroups', 'keystore', 'settings'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** One write made by another instance: the ids it touched, or null when it may have touched any of that kind. */
export interface ChangeNotice {
  kind: ChangeKind;
  ids: readonly string[] | null;
  /** The instance that made the write. */
  origin: string;
}

export interface ChangeBus {
  /** Announces a write made here to every other instance (in the order published); never rejects. */
  publish(kind: ChangeKind, ids: readonly string[] | null): void;
  /** Calls `listener` for each write another instance announces; returns the way to stop. */
  onChange(listener: (notice: ChangeNotice) => void): () => void;
  /** Calls `listener` when announcements may have been missed (a dropped connection): everything must be reloaded. */
  onResync(listener: () => void): () => void;
  /** Resolves once everything published so far has been sent (or has failed and been logged). */
  settled(): Promise<void>;
}

/** The embedded engine's bus: one instance, whose own writes already refresh what it holds, so nothing travels. */
export const embeddedChangeBus: ChangeBus = {
  publish: () => undefined,
  onChange: () => () => undefined,
  onResync: () => () => undefined,
  settled: () => Promise.resolve(),
};


/** The NOTIFY payload of a change; when the ids would not fit, the notice says "any of this kind" instead. */
export function encodeChange(notice: ChangeNotice): string {
  const full = JSON.stringify({ o: notice.origin, k: notice.kind, i: notice.ids });
  if (Buffer.byteLength(full) <= MAX_NOTICE_BYTES) return full;
  return JSON.stringify({ o: notice.origin, k: notice.kind, i: null });
}

/** Reads a payload written by `encodeChange`; null for anything else (a newer or foreign sender), which is ignored. */
export function decodeChange(payload: string): ChangeNotice | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const { o, k, i } = parsed as { o?: unknown; k?: unknown; i?: unknown };
  if (typeof o !== 'string' || !CHANGE_KINDS.includes(k as ChangeKind)) return null;
  if (i !== null && !(Array.isArray(i) && i.every((id) => typeof id === 'string'))) return null;
  return { origin: o, kind: k as ChangeKind, ids: i };
}
