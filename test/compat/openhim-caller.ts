/**
 * The compatibility suite's caller: a real Junction over real HTTPS, called the way OpenHIM's integration tests and
 * its console call OpenHIM (JSON bodies, Basic credentials or the console's session cookie). Each file under test/compat/ covers one area with OpenHIM's status codes
 * and field names; the helpers here only set up callers, they assert nothing.
 */
import { basic, sessionCookie, startJunction, unlockRoot, ROOT_EMAIL, NEW_ROOT_PASSWORD } from '../helpers/junction.js';
import type { TestJunction, TestRequestInit, TestResponse } from '../helpers/junction.js';

export { ROOT_EMAIL, NEW_ROOT_PASSWORD };
export type { TestJunction, TestResponse };

/** Headers that identify one caller. */
export type CallerHeaders = Record<string, string>;

/** One caller of the management API: every call goes over the socket, as an OpenHIM script's would. */
export interface Caller {
  headers: CallerHeaders;
  get(path: string): Promise<TestResponse>;
  post(path: string, json?: unknown): Promise<TestResponse>;
  put(path: string, json?: unknown): Promise<TestResponse>;
  delete(path: string): Promise<TestResponse>;
  call(path: string, init: TestRequestInit): Promise<TestResponse>;
}

export interface CompatJunction {
  t: TestJunction;
  /** The super user (admin group), with its first-run password already changed. */
  root: Caller;
  /** Creates a user in the given groups (through the API, as root) and returns a Basic-auth caller for it. */
  user(email: string, groups: string[]): Promise<Caller>;
  /** A caller with the given headers (for example none, to see a 401). */
  caller(headers: CallerHeaders): Caller;
  destroy(): Promise<void>;
}

const USER_PASSWORD = 'compat-password-123';

/** Starts a Junction for one compatibility file. */
export async function startCompat(config: Parameters<typeof startJunction>[0] = {}): Promise<CompatJunction> {
  const t = await startJunction(config);
  const caller = (headers: CallerHeaders): Caller => {
    const call = (path: string, init: TestRequestInit) => t.request(path, { ...init, headers: { ...headers, ...(init.headers as Record<string, string> | undefined) } });
    return {
      headers,
      call,
      get: (path) => call(path, {}),
      // A POST without a body says it is meant with X-Requested-With (REQUEST_MARKER_REQUIRED); OpenHIM needed nothing.
      post: (path, json) => call(path, { method: 'POST', ...(json === undefined ? { headers: { 'x-requested-with': 'openhim-script' } } : { json }) }),
      put: (path, json) => call(path, { method: 'PUT', ...(json === undefined ? {} : { json }) }),
      delete: (path) => call(path, { method: 'DELETE' }),
    };
  };
  const root = caller({ authorization: await unlockRoot(t) });
  return {
    t,
    root,
    caller,
    async user(email, groups) {
      const res = await root.post('/users', { email, firstname: 'Compat', surname: 'User', groups, password: USER_PASSWORD });
      if (res.status !== 201) throw new Error(`could not create ${email}: ${res.status} ${res.text}`);
      return caller({ authorization: basic(email, USER_PASSWORD) });
    },
    destroy: () => t.destroy(),
  };
}

/** Signs in as OpenHIM's console does (`POST /authenticate/local`) and returns a caller holding the session cookie. */
export async function consoleSession(c: CompatJunction, username: string, password: string): Promise<Caller> {
  const res = await c.t.request('/authenticate/local', { method: 'POST', json: { username, password } });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  return c.caller({ cookie: sessionCookie(res) });
}

/** Drops the fields a test does not compare, so a GET and a later GET can be matched field by field. */
export function without<T extends Record<string, unknown>>(doc: T, ...keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(doc).filter(([key]) => !keys.includes(key)));
}
