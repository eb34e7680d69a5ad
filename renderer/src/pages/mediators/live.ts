/** Keeps the mediators store live while a mediators page is open: heartbeat events, reconnects, offline checks. */
import { useEffect, useState } from 'react';
import { live } from '../../api/live';
import { useMediators } from '../../stores/mediators';

// The server decides when a silent mediator is offline; asking again this often keeps the badge honest.
const OFFLINE_CHECK_MS = 15_000;

/** Subscribes to heartbeats and calls `refetch` after the live feed comes back from a drop. */
export function useMediatorsLive(refetch: () => void): void {
  useEffect(() => {
    const offHeartbeat = live.on('mediator.heartbeat', (data) => useMediators.getState().heartbeat(data));
    const offReconnect = live.onReconnect(refetch);
    const timer = setInterval(() => void useMediators.getState().refreshUptimes(), OFFLINE_CHECK_MS);
    return () => {
      offHeartbeat();
      offReconnect();
      clearInterval(timer);
    };
  }, [refetch]);
}

/** The current time, renewed every `ms` (for uptimes and "ago" texts that move on their own). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
