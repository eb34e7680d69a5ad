/** Typed calls for the About page: versions and ports, and the store's health. */
import type { AboutAnswer, HealthAnswer } from '../../../service/contracts/api';
import { api, ApiError } from './client';

export function getAbout(signal?: AbortSignal): Promise<AboutAnswer> {
  return api.get<AboutAnswer>('/about', undefined, signal);
}

/**
 * The store's health. `/health` is public and answers 503 with the same description when the store is down, which
 * the page shows rather than an error; so it is read directly instead of through the client (which drops 5xx bodies).
 */
export async function getHealth(signal?: AbortSignal): Promise<HealthAnswer> {
  let response: Response;
  try {
    response = await fetch('/health', { headers: { accept: 'application/json' }, credentials: 'same-origin', signal });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'NETWORK', 'Junction did not answer', { cause: (err as Error).message });
  }
  if (response.status !== 200 && response.status !== 503) throw new ApiError(response.status, `HTTP_${response.status}`, response.statusText || `HTTP ${response.status}`);
  return (await response.json()) as HealthAnswer;
}
