/**
 * The console's one way to the management API: same origin, session cookie, JSON in and out. Every failure becomes
 * an ApiError that carries the server's code and field problems, so pages can say what went wrong in words and
 * put each problem next to its field. A 401 while signed in pauses the call until the user signs in again, then
 * repeats it: the page behind the sign-in dialog keeps its state, and the save that was clicked still happens.
 */
import type { ApiErrorBody, ValidationProblem } from '../../../service/contracts/api';

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  /** Do not wait for a new sign-in on 401 (the sign-in calls themselves). */
  noReauth?: boolean;
  /** Extra request headers (the passphrase of an export with secrets). */
  headers?: Record<string, string>;
}

/** A failed API call: `status` 0 means the service did not answer at all. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;

  constructor(status: number, code: string, message: string, details: unknown = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }

  /** The server's validation problems, when it named fields. */
  get problems(): ValidationProblem[] {
    if (!Array.isArray(this.details)) return [];
    return this.details.filter(
      (p): p is ValidationProblem => typeof p === 'object' && p !== null && typeof (p as ValidationProblem).path === 'string' && typeof (p as ValidationProblem).message === 'string',
    );
  }

  /**
   * Problems keyed by field path without the request part: `body.routes.0.host` becomes `routes.0.host`, so a form
   * can look up the message for its own field names.
   */
  fieldErrors(): Record<string, string> {
    const fields: Record<string, string> = {};
    for (const problem of this.problems) {
      const key = problem.path.replace(/^(body|query|params)\.?/, '');
      fields[key] ??= problem.message;
    }
    return fields;
  }
}

/** Called on a 401 while signed in; resolves true once the user has signed in again, false if they gave up. */
export type ReauthHandler = () => Promise<boolean>;

export function buildQuery(query: Query | undefined): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

async function toApiError(response: Response): Promise<ApiError> {
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: described by status alone
  }
  const error = (body as Partial<ApiErrorBody> | null)?.error;
  if (error !== undefined && typeof error.code === 'string') return new ApiError(response.status, error.code, error.message, error.details);
  return new ApiError(response.status, `HTTP_${response.status}`, response.statusText || `HTTP ${response.status}`);
}

export class ApiClient {
  #reauth: ReauthHandler | null = null;

  /** Installed by the session store while someone is signed in. */
  setReauthHandler(handler: ReauthHandler | null): void {
    this.#reauth = handler;
  }

  /** Sends a request and returns the raw response once it succeeded (2xx); for streams such as the export. */
  async fetch(path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...options.headers, accept: 'application/json', 'x-requested-with': 'junction-console' };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    let response: Response;
    try {
      response = await fetch(`${path}${buildQuery(options.query)}`, {
        method: options.method ?? 'GET',
        headers,
        body,
        credentials: 'same-origin',
        signal: options.signal,
      });
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw new ApiError(0, 'NETWORK', 'Junction did not answer', { cause: (err as Error).message });
    }
    if (response.ok) return response;
    const error = await toApiError(response);
    if (error.status === 401 && options.noReauth !== true && this.#reauth !== null) {
      const signedIn = await this.#reauth();
      if (signedIn) return this.fetch(path, { ...options, noReauth: true });
    }
    throw error;
  }

  /** Sends a request and parses the JSON answer; an empty answer becomes undefined. */
  async request<T>(path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.fetch(path, options);
    const text = await response.text();
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      return text as T;
    }
  }

  get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
    return this.request<T>(path, { query, signal });
  }

  post<T>(path: string, body?: unknown, query?: Query): Promise<T> {
    return this.request<T>(path, { method: 'POST', body: body ?? {}, query });
  }

  put<T>(path: string, body: unknown, query?: Query): Promise<T> {
    return this.request<T>(path, { method: 'PUT', body, query });
  }

  delete<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>(path, { method: 'DELETE', query });
  }
}

/** The console's client: one per page load, like the session it rides on. */
export const api = new ApiClient();

/** Encodes one path segment (ids, emails, urns). */
export function seg(value: string): string {
  return encodeURIComponent(value);
}
