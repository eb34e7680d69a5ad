/**
 * Fixtures for the console tests: `junction` is a real service process (built dist/, HTTPS on 127.0.0.1, a fresh
 * data folder, free ports) and `console` is a page signed in as the super user. `shot` saves a full-page screenshot
 * under the test's output folder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base, expect } from '@playwright/test';
import type { Page, TestInfo } from '@playwright/test';
import { loopbackListeners, runService } from '../helpers/process.js';
import type { ServiceProcess } from '../helpers/process.js';

export const ROOT_EMAIL = 'root@junction.local';
export const FIRST_RUN_PASSWORD = 'junction-password';
/** The super user's password in tests that do not exercise the first-run change. */
export const ADMIN_PASSWORD = 'clinic-console-passphrase-7';

export interface E2EJunction {
  /** https://127.0.0.1:<port>: the console and the management API. */
  apiUrl: string;
  /** http://127.0.0.1:<port>: the HTTP transaction port (5001 in production). */
  httpUrl: string;
  httpsUrl: string;
  dataDir: string;
  process: ServiceProcess;
  /** The super user's current password, used by `api`; a test that changes it updates this. */
  adminPassword: string;
  /** Calls the management API as the super user (Basic auth). */
  api: (method: string, path: string, body?: unknown) => Promise<{ status: number; json: unknown; text: string }>;
}

export interface JunctionOptions {
  /** Leave the super user on its first-run password (forced change at first sign-in). */
  firstRun: boolean;
  /** Extra JUNCTION_* variables. */
  env: Record<string, string>;
}

/** Node's fetch with the test's self-signed certificate accepted. */
async function insecureFetch(url: string, init: RequestInit): Promise<Response> {
  const { Agent } = await import('undici');
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  try {
    return await fetch(url, { ...init, dispatcher } as RequestInit);
  } finally {
    void dispatcher.close();
  }
}

export async function startE2EJunction(options: JunctionOptions): Promise<E2EJunction> {
  const dataDir = await mkdtemp(join(tmpdir(), 'junction-e2e-'));
  const listeners = await loopbackListeners();
  const env: Record<string, string> = {
    JUNCTION_DATA_DIR: dataDir,
    ...listeners,
    ...(options.firstRun ? {} : { JUNCTION_ADMIN_PASSWORD: ADMIN_PASSWORD }),
    ...options.env,
  };
  const service = runService([], env);
  await service.ready;
  const apiUrl = `https://127.0.0.1:${listeners.JUNCTION_API_PORT}`;
  const junction: E2EJunction = {
    apiUrl,
    httpUrl: `http://127.0.0.1:${listeners.JUNCTION_ROUTER_HTTP_PORT}`,
    httpsUrl: `https://127.0.0.1:${listeners.JUNCTION_ROUTER_HTTPS_PORT}`,
    dataDir,
    process: service,
    adminPassword: options.firstRun ? FIRST_RUN_PASSWORD : ADMIN_PASSWORD,
    async api(method, path, body) {
      const authorization = `Basic ${Buffer.from(`${ROOT_EMAIL}:${junction.adminPassword}`).toString('base64')}`;
      const response = await insecureFetch(`${apiUrl}${path}`, {
        method,
        headers: { authorization, 'x-requested-with': 'e2e', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: response.status, json, text };
    },
  };
  return junction;
}

export async function stopE2EJunction(junction: E2EJunction): Promise<void> {
  junction.process.child.kill('SIGTERM');
  await junction.process.exited;
  await rm(junction.dataDir, { recursive: true, force: true });
}

/** Signs in through the form. */
export async function signIn(page: Page, junction: E2EJunction, password = ADMIN_PASSWORD, email = ROOT_EMAIL): Promise<void> {
  await page.goto(`${junction.apiUrl}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Saves a full-page screenshot named `<name>.png` under the test's output folder. */
export async function shot(page: Page, testInfo: TestInfo, name: string): Promise<string> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach(name, { path, contentType: 'image/png' });
  return path;
}

/**
 * Fails when the page scrolls sideways at its current size (the console must fit 1280×800). Polled, not read once:
 * right after `setViewportSize` the page may still be laid out for the old width until React re-renders on the
 * media query's change event (the transaction list's `useMediaQuery`), which once made CI read a 39 px overflow from
 * the filters that was gone 50 ms later. A page that stays too wide still fails, after the expect timeout.
 */
export async function expectNoHorizontalScroll(page: Page): Promise<void> {
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), { message: 'the page is wider than the window', intervals: [50, 100, 250] })
    .toBeLessThanOrEqual(0);
}

/**
 * Signs in as the super user through the API the sign-in form calls (`POST /authenticate/local`), from the page's own
 * request context, so the session cookie lands in the page's browser context; then opens the console on it. The form
 * itself is walked by the tests that are about signing in (signin, flow, session, users...).
 */
export async function signInByApi(page: Page, junction: E2EJunction): Promise<void> {
  const answer = await page.request.post(`${junction.apiUrl}/authenticate/local`, {
    data: { username: ROOT_EMAIL, password: junction.adminPassword },
    headers: { 'x-requested-with': 'e2e' },
  });
  expect(answer.status(), await answer.text()).toBe(200);
  await page.goto(`${junction.apiUrl}/`);
}

export const test = base.extend<JunctionOptions & { junctionStarting: Promise<E2EJunction>; junction: E2EJunction; console: Page }>({
  firstRun: [false, { option: true }],
  env: [{}, { option: true }],
  // The service's start, begun without waiting for it: `console` asks for this before `page`, so the service boots
  // while the browser makes the context and page (a few seconds per test otherwise spent one after the other).
  junctionStarting: async ({ firstRun, env }, use) => {
    const starting = startE2EJunction({ firstRun, env });
    // Awaited by `junction`, where a failed start fails the test; here only so it is never an unhandled rejection.
    starting.catch(() => undefined);
    try {
      await use(starting);
    } finally {
      const junction = await starting.catch(() => undefined);
      if (junction !== undefined) await stopE2EJunction(junction);
    }
  },
  junction: async ({ junctionStarting }, use) => {
    await use(await junctionStarting);
  },
  // Parameter order matters: Playwright sets a fixture's dependencies up in the order they are named.
  console: async ({ junctionStarting, page, junction }, use) => {
    void junctionStarting;
    await signInByApi(page, junction);
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    await use(page);
  },
});

export { expect };
