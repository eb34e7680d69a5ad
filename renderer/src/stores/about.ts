/** The About page's facts: versions and ports (GET /about) and the store's health (GET /health). */
import { create } from 'zustand';
import type { AboutAnswer, HealthAnswer } from '../../../service/contracts/api';
import { getAbout, getHealth } from '../api/about';

interface AboutState {
  about: AboutAnswer | null;
  health: HealthAnswer | null;
  loading: boolean;
  error: unknown;
  healthError: unknown;
  load: () => Promise<void>;
}

export const useAbout = create<AboutState>()((set) => ({
  about: null,
  health: null,
  loading: false,
  error: null,
  healthError: null,
  async load() {
    set({ loading: true, error: null, healthError: null });
    // Each half is shown on its own: a store that is down must not hide the versions, nor the other way round.
    const [about, health] = await Promise.allSettled([getAbout(), getHealth()]);
    set({
      loading: false,
      about: about.status === 'fulfilled' ? about.value : null,
      error: about.status === 'rejected' ? (about.reason as unknown) : null,
      health: health.status === 'fulfilled' ? health.value : null,
      healthError: health.status === 'rejected' ? (health.reason as unknown) : null,
    });
  },
}));
