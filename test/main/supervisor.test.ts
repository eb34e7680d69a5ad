import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sleep, until } from '../helpers/wait.js';
import { FIXTURES, isGone, testSupervisor } from './helpers.js';
import type { TestSupervisor } from './helpers.js';

// Short timings throughout: the rules are the same, only the clock is faster.
const FAST_RESTART = { initialDelayMs: 100, factor: 2, maxDelayMs: 1_000, maxCrashes: 3, windowMs: 60_000 };

const running: TestSupervisor[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.supervisor.stop()));
});

async function start(fixture: string, env: Record<string, string> = {}, options: Parameters<typeof testSupervisor>[2] = {}) {
  const t = await testSupervisor(join(FIXTURES, fixture), env, { restart: FAST_RESTART, ...options });
  running.push(t);
  t.supervisor.start();
  return t;
}

describe('the supervisor', () => {
  it('reports the ready message and writes the child output and its own events to the log file', async () => {
    const t = await start('ready.js', { FIXTURE_API_URL: 'https://127.0.0.1:4321' });
    const state = await t.waitFor((s) => s.phase === 'running', 'running');
    expect(state).toMatchObject({ phase: 'running', ready: { apiUrl: 'https://127.0.0.1:4321', version: '9.9.9-fixture' } });
    const [pid] = await t.pids();
    expect(state.phase === 'running' && state.pid).toBe(pid);

    const log = await until('both streams in the log', async () => {
      const text = await t.logText();
      return text.includes('fixture stderr') && text.includes('fixture stdout') ? text : undefined;
    });
    expect(log).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z \[stdout\] fixture stdout: run 1 pid \d+$/m);
    expect(log).toMatch(/\[stderr\] fixture stderr: run 1$/m);
    expect(log).toMatch(/\[shell\] starting the service: .*ready\.js$/m);
    expect(log).toMatch(/\[shell\] the service is ready at https:\/\/127\.0\.0\.1:4321/m);
  });

  it('restarts a service killed from outside after a backoff, and it becomes ready again', async () => {
    const t = await start('ready.js');
    const first = await t.waitFor((s) => s.phase === 'running', 'first ready');
    const firstPid = first.phase === 'running' ? first.pid : 0;
    process.kill(firstPid, 'SIGKILL');

    const restarting = await t.waitFor((s) => s.phase === 'restarting', 'restarting');
    expect(restarting).toMatchObject({ phase: 'restarting', delayMs: 100, crashes: 1 });
    expect(restarting.phase === 'restarting' && restarting.reason).toContain('SIGKILL');
    const second = await t.waitFor((s) => s.phase === 'running', 'second ready');
    expect(second.phase === 'running' && second.pid).not.toBe(firstPid);
    expect(isGone(firstPid)).toBe(true);
    expect(await t.pids()).toHaveLength(2);
    expect(await t.logText()).toContain('[shell] the service was ended by SIGKILL');
  });

  it('starts a service that exits asking for a restart (75) again at once, without counting it as a crash', async () => {
    // Three restarts in a row would be a give-up (maxCrashes 3) if they counted as crashes.
    const t = await start('ready.js', { FIXTURE_RESTART_RUNS: '3' });
    await until('fourth start ready', () => (t.supervisor.state.phase === 'running' && t.states.filter((s) => s.phase === 'running').length === 4 ? true : undefined));
    expect(t.states.filter((s) => s.phase === 'restarting' || s.phase === 'failed')).toEqual([]);
    expect(await t.pids()).toHaveLength(4);
    const log = await t.logText();
    expect(log).toContain('[shell] the service exited with code 75');
    expect(log.match(/\[shell\] the service asked to be restarted; starting it again/g)).toHaveLength(3);
  });

  it('waits longer after each crash: a child whose first two runs crash after ready comes up on the third start', async () => {
    const t = await start('ready.js', { FIXTURE_CRASH_RUNS: '2' }, { restart: { ...FAST_RESTART, maxCrashes: 5 } });
    await until('third start ready', () => (t.supervisor.state.phase === 'running' && t.states.filter((s) => s.phase === 'running').length === 3 ? true : undefined));
    const restarts = t.states.filter((s) => s.phase === 'restarting');
    expect(restarts.map((s) => s.phase === 'restarting' && s.delayMs)).toEqual([100, 200]);
    expect(restarts[0]?.phase === 'restarting' && restarts[0].reason).toBe(
      'The service stopped unexpectedly (exited with code 3): fixture stderr: run 1 fixture: run 1 crashing on purpose',
    );
    expect(await t.pids()).toHaveLength(3);
    // Still up a while later: no more restarts once it stays running.
    await sleep(300);
    expect(t.supervisor.state.phase).toBe('running');
    expect(await t.pids()).toHaveLength(3);
  });

  it('gives up after repeated crashes with a reason, and starts nothing more', async () => {
    const t = await start('always-crash.js');
    const failed = await t.waitFor((s) => s.phase === 'failed', 'failed');
    expect(failed.phase === 'failed' && failed.reason).toBe(
      'The service stopped unexpectedly (exited with code 1), 3 times within 60 s: fatal: the data file is damaged',
    );
    expect(t.states.filter((s) => s.phase === 'restarting')).toHaveLength(2);
    await sleep(600);
    expect(await t.pids()).toHaveLength(3);
    expect(t.supervisor.state.phase).toBe('failed');
    expect(await t.logText()).toContain('[shell] giving up: The service stopped unexpectedly');

    // A person can try again: the count starts over.
    t.supervisor.start();
    await t.waitFor((s) => s.phase === 'failed' && t.states.filter((x) => x.phase === 'failed').length === 2, 'failed again');
    expect(await t.pids()).toHaveLength(6);
  });

  it('does not restart a service that stopped on a configuration error (exit code 78)', async () => {
    const t = await start('config-error.js');
    const failed = await t.waitFor((s) => s.phase === 'failed', 'failed');
    expect(failed.phase === 'failed' && failed.reason).toBe(
      'The service cannot start: Junction cannot start: JUNCTION_API_PORT="eighty" (api.port) must be a number',
    );
    await sleep(300);
    expect(await t.pids()).toHaveLength(1);
    expect(t.states.some((s) => s.phase === 'restarting')).toBe(false);
  });

  it('treats a start that never reports ready as a failure and kills that child', async () => {
    const t = await start('never-ready.js', {}, { readyTimeoutMs: 300, restart: { ...FAST_RESTART, maxCrashes: 2 } });
    const failed = await t.waitFor((s) => s.phase === 'failed', 'failed');
    expect(failed.phase === 'failed' && failed.reason).toBe('The service did not report ready within 0.3 s, 2 times within 60 s');
    const pids = await t.pids();
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isGone(pid)).toBe(true);
    expect(t.states.map((s) => s.phase)).toEqual(['starting', 'restarting', 'starting', 'failed']);
    const log = await t.logText();
    expect(log).toContain('[stdout] fixture: starting and never finishing');
    expect(log).toContain('[shell] the service did not report ready within 0.3 s; stopping it');
    expect(log).toContain('[shell] the service was ended by SIGTERM');
  });

  it('fails with the reason when the program to run the service does not exist', async () => {
    const t = await start('ready.js', {}, { execPath: '/nonexistent/electron', restart: { ...FAST_RESTART, maxCrashes: 1 } });
    const failed = await t.waitFor((s) => s.phase === 'failed', 'failed');
    expect(failed.phase === 'failed' && failed.reason).toContain('could not be started (spawn /nonexistent/electron ENOENT)');
  });

  it('stops the child with SIGTERM and leaves no process behind', async () => {
    const t = await start('ready.js');
    await t.waitFor((s) => s.phase === 'running', 'running');
    const pid = t.supervisor.pid ?? 0;
    await t.supervisor.stop();
    expect(t.supervisor.state).toEqual({ phase: 'stopped' });
    expect(isGone(pid)).toBe(true);
    const log = await t.logText();
    expect(log).toContain('fixture: SIGTERM, exiting');
    expect(log).toContain('[shell] the service exited with code 0');
    // Stopping is not a crash: nothing restarts it.
    await sleep(300);
    expect(await t.pids()).toHaveLength(1);
  });

  it('kills a child that ignores SIGTERM once the stop timeout passes', async () => {
    const t = await start('ready.js', { FIXTURE_IGNORE_SIGTERM: '1' }, { stopTimeoutMs: 300 });
    await t.waitFor((s) => s.phase === 'running', 'running');
    const pid = t.supervisor.pid ?? 0;
    const began = Date.now();
    await t.supervisor.stop();
    expect(Date.now() - began).toBeGreaterThanOrEqual(290);
    expect(isGone(pid)).toBe(true);
    const log = await t.logText();
    expect(log).toContain('fixture: ignoring SIGTERM');
    expect(log).toContain('[shell] the service did not stop within 0.3 s; killing it');
    expect(log).toContain('[shell] the service was ended by SIGKILL');
  });

  it('asks for the stop over IPC when told to (as on Windows)', async () => {
    const t = await start('ready.js', {}, { stopVia: 'message' });
    await t.waitFor((s) => s.phase === 'running', 'running');
    const pid = t.supervisor.pid ?? 0;
    await t.supervisor.stop();
    expect(isGone(pid)).toBe(true);
    expect(await t.logText()).toContain('fixture: stop message, exiting');
  });

  it('stops during the wait before a restart without starting anything', async () => {
    const t = await start('always-crash.js', {}, { restart: { ...FAST_RESTART, initialDelayMs: 500 } });
    await t.waitFor((s) => s.phase === 'restarting', 'restarting');
    await t.supervisor.stop();
    await sleep(700);
    expect(await t.pids()).toHaveLength(1);
    expect(t.supervisor.state).toEqual({ phase: 'stopped' });
  });
});
