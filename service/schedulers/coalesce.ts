/**
 * "Work arrived" signals for a background loop: a signal while the loop runs makes it run once more afterwards, so
 * nothing signalled is missed and signals never pile up into parallel runs.
 */
import type { Logger } from 'pino';

export interface Coalesced {
  /** Asks for a run; returns at once. */
  signal(): void;
  /** Asks for a run and resolves when no run is pending any more; never rejects. */
  settle(): Promise<void>;
}

/** Runs `work` on signals, one run at a time; a failure is logged and does not stop later runs. */
export function coalesce(work: () => Promise<void>, logger: Logger, what: string): Coalesced {
  let again = false;
  let running: Promise<void> | null = null;
  const loop = async (): Promise<void> => {
    while (again) {
      again = false;
      try {
        await work();
      } catch (err) {
        logger.error({ err }, `${what} failed; it is tried again at the next signal or tick`);
      }
    }
  };
  const settle = (): Promise<void> => {
    again = true;
    running ??= loop().finally(() => {
      running = null;
    });
    return running;
  };
  return {
    signal: () => void settle(),
    settle,
  };
}
