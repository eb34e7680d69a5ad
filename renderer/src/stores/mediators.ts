/**
 * Mediators: the list with each one's uptime (GET /mediators + GET /heartbeat), kept live by `mediator.heartbeat`
 * events, and the mediator open on the detail page.
 */
import { create } from 'zustand';
import type { PublicMediator } from '../../../service/contracts/mediators';
import { getMediator, heartbeats, listMediators } from '../api/mediators';

interface HeartbeatEvent {
  urn: string;
  uptime: number;
  at: string;
}

interface MediatorsState {
  mediators: PublicMediator[];
  /** Uptime in seconds per urn as of its last heartbeat; null while offline. */
  uptimes: Record<string, number | null>;
  loading: boolean;
  /** The list has been read at least once. */
  loaded: boolean;
  error: unknown;
  /** The mediator on the detail page. */
  current: PublicMediator | null;
  currentError: unknown;
  load: () => Promise<void>;
  /** Re-reads who is online (the server decides when a silent mediator goes offline). */
  refreshUptimes: () => Promise<void>;
  open: (urn: string) => Promise<void>;
  /** Replaces the open mediator (and its list entry) with a fresher copy, e.g. the answer of a save. */
  setCurrent: (mediator: PublicMediator) => void;
  removed: (urn: string) => void;
  heartbeat: (event: HeartbeatEvent) => void;
}

export const useMediators = create<MediatorsState>()((set, get) => ({
  mediators: [],
  uptimes: {},
  loading: false,
  loaded: false,
  error: null,
  current: null,
  currentError: null,
  async load() {
    set({ loading: true, error: null });
    try {
      const [mediators, beat] = await Promise.all([listMediators(), heartbeats()]);
      set({ mediators, uptimes: beat.mediators, loading: false, loaded: true });
    } catch (error) {
      set({ error, loading: false });
    }
  },
  async refreshUptimes() {
    try {
      const beat = await heartbeats();
      set((s) => ({
        uptimes: beat.mediators,
        mediators: s.mediators.map((m) => ({ ...m, online: beat.mediators[m.urn] !== null && beat.mediators[m.urn] !== undefined })),
        current: s.current === null ? null : { ...s.current, online: beat.mediators[s.current.urn] !== null && beat.mediators[s.current.urn] !== undefined },
      }));
    } catch {
      // The next full load reports the failure; a missed refresh only delays an offline badge.
    }
  },
  async open(urn) {
    if (get().current?.urn !== urn) set({ current: null });
    set({ currentError: null });
    try {
      const mediator = await getMediator(urn);
      get().setCurrent(mediator);
    } catch (currentError) {
      set({ currentError });
    }
  },
  setCurrent(mediator) {
    set((s) => ({
      current: mediator,
      mediators: s.mediators.map((m) => (m.urn === mediator.urn ? mediator : m)),
      uptimes: { ...s.uptimes, [mediator.urn]: mediator.online ? (mediator._uptime ?? null) : null },
    }));
  },
  removed(urn) {
    set((s) => ({ mediators: s.mediators.filter((m) => m.urn !== urn), current: s.current?.urn === urn ? null : s.current }));
  },
  heartbeat(event) {
    const apply = (m: PublicMediator): PublicMediator => (m.urn === event.urn ? { ...m, online: true, _uptime: event.uptime, _lastHeartbeat: event.at } : m);
    const known = get().mediators.some((m) => m.urn === event.urn);
    set((s) => ({
      mediators: s.mediators.map(apply),
      uptimes: { ...s.uptimes, [event.urn]: event.uptime },
      current: s.current === null ? null : apply(s.current),
    }));
    // A heartbeat from a mediator registered since the list was read: read the list again to show it.
    if (!known && get().loaded) void get().load();
  },
}));
