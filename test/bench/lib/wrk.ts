/**
 * Closed-loop load with `wrk` (C, Debian package `wrk`), so the generator's share of the 2 cores is small and the
 * same for every target. One wrk thread; a Lua script sets the body, cycles paths, and prints its figures as JSON.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadResult } from './load.js';
import { round } from './load.js';

export interface WrkOptions {
  url: string;
  connections: number;
  durationMs: number;
  /**
   * Send exactly `count` requests (cycling `paths`), then only `fillerPath` until all `count` are answered, and stop:
   * the target must answer the filler without keeping anything (Junction: a path no channel matches), and the
   * counted answers must carry `countedHeader` (the upstream's), so none of the `count` is cut off in flight when wrk
   * stops. Only the counted answers are in `statuses`. The run lasts at most `durationMs`.
   */
  amount?: { count: number; fillerPath: string; countedHeader: string };
  method?: 'GET' | 'POST';
  body?: Buffer;
  headers?: Record<string, string>;
  /** Paths to cycle through; the URL's own path when absent. */
  paths?: string[];
  /**
   * Bodies to cycle through, one per request (with `paths` cycled alongside); `body` is then unused. Each is read
   * into wrk once, at start, so the load costs wrk no more than one body.
   */
  bodies?: Buffer[];
  /** Count answers by status (costs wrk a Lua call per answer; off for the throughput rows). */
  countStatuses?: boolean;
}

/** A wrk run's figures, with the CPU wrk itself used (user + system), in seconds. */
export type WrkResult = LoadResult & { generatorCpuSeconds: number };

/** True when a `wrk` binary is on the PATH. */
export function wrkAvailable(): boolean {
  return spawnSync('wrk', ['-v'], { stdio: 'ignore' }).error === undefined;
}

const lua = (value: string): string => JSON.stringify(value); // a JSON string is a valid Lua string literal for ASCII

/**
 * Lua: cycles `paths` (or, with `bodyFiles`, one request per body file, each with the next path), and after
 * `amount.count` requests sends only the filler path.
 */
function requestFunction(paths: string[], amount: WrkOptions['amount'], bodyFiles: string[] = []): string {
  return `local paths = { ${paths.map(lua).join(', ')} }
local bodyFiles = { ${bodyFiles.map(lua).join(', ')} }
local requests = {}
local filler
function init(args)
  if #bodyFiles == 0 then
    for i, p in ipairs(paths) do requests[i] = wrk.format(nil, p) end
  else
    for i, name in ipairs(bodyFiles) do
      local f = io.open(name, "rb"); local b = f:read("*a"); f:close()
      requests[i] = wrk.format(nil, paths[(i - 1) % #paths + 1], nil, b)
    end
  end
  ${amount === undefined ? '' : `filler = wrk.format(nil, ${lua(amount.fillerPath)})`}
end
local sent = 0
local calls = 0
function request()
  calls = calls + 1
  -- wrk (4.1) calls request() once per thread before connecting and never sends that one: it gets the filler, so
  -- exactly count requests to the paths go out either way.
  ${amount === undefined ? '' : `if calls == 1 or sent >= ${amount.count} then return filler end`}
  sent = sent + 1
  return requests[(sent - 1) % #requests + 1]
end`;
}

function script(options: WrkOptions, bodyFile: string, bodyFiles: string[]): string {
  const headers = Object.entries(options.headers ?? {}).map(([k, v]) => `wrk.headers[${lua(k)}] = ${lua(v)}`);
  const paths = options.paths ?? [];
  const cycled = paths.length > 0 || options.amount !== undefined || bodyFiles.length > 0;
  return `
wrk.method = ${lua(options.method ?? 'GET')}
${options.body === undefined ? '' : `local f = io.open(${lua(bodyFile)}, "rb"); wrk.body = f:read("*a"); f:close()`}
${headers.join('\n')}
local threads = {}
function setup(thread) table.insert(threads, thread) end
${cycled ? requestFunction(paths.length === 0 ? [new URL(options.url).pathname] : paths, options.amount, bodyFiles) : ''}
${
  options.countStatuses === true || options.amount !== undefined
    ? `statuses = {}
answered = 0
function response(status, headers, body)
  ${options.amount === undefined ? '' : `if not headers[${lua(options.amount.countedHeader)}] then return end`}
  statuses[status] = (statuses[status] or 0) + 1
  answered = answered + 1
  ${options.amount === undefined ? '' : `if answered == ${options.amount.count} then wrk.thread:stop(); io.write("\\nWRK-ENOUGH\\n"); io.flush() end`}
end`
    : ''
}
function done(summary, latency, requests)
  local s = {}
  for _, t in ipairs(threads) do
    local st = t:get("statuses")
    if st then for k, v in pairs(st) do s[#s + 1] = string.format('"%d":%d', k, v) end end
  end
  -- wrk's own CPU (user + system, all its threads), from /proc as for the targets: clock ticks, 100 a second.
  local cpu = -1
  local pf = io.open("/proc/self/stat", "r")
  if pf then
    local stat = pf:read("*a"); pf:close()
    local fields = {}
    for w in stat:sub(stat:find("%)[^%)]*$") + 2):gmatch("%S+") do fields[#fields + 1] = w end
    cpu = (tonumber(fields[12]) + tonumber(fields[13])) / 100
  end
  local e = summary.errors
  io.write(string.format('\\nWRK-JSON {"requests":%d,"durationUs":%d,"p50us":%d,"p99us":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"non2xx":%d,"timeouts":%d,"cpuSeconds":%.2f,"statuses":{%s}}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.connect, e.read, e.write, e.status, e.timeout, cpu, table.concat(s, ",")))
end
`;
}

/** Runs wrk once and parses its figures. */
export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  const dir = await mkdtemp(join(tmpdir(), 'junction-wrk-'));
  try {
    const bodyFile = join(dir, 'body');
    const scriptFile = join(dir, 'load.lua');
    if (options.body !== undefined) await writeFile(bodyFile, options.body);
    const bodyFiles = (options.bodies ?? []).map((_, i) => join(dir, `body-${i}`));
    await Promise.all((options.bodies ?? []).map((b, i) => writeFile(bodyFiles[i] ?? '', b)));
    await writeFile(scriptFile, script(options, bodyFile, bodyFiles));
    const seconds = Math.max(1, Math.round(options.durationMs / 1000));
    const args = ['-t1', `-c${options.connections}`, `-d${seconds}s`, '--timeout', '30s', '-s', scriptFile, options.url];
    const stdout = await new Promise<string>((resolve, reject) => {
      const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      // A stopped wrk thread does not end wrk, which sleeps out its duration; SIGINT makes it report at once.
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        if (out.includes('WRK-ENOUGH')) child.kill('SIGINT');
      });
      child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString('utf8')).slice(-2000)));
      const limit = setTimeout(() => child.kill('SIGKILL'), (seconds + 60) * 1000);
      child.once('error', reject);
      child.once('close', (code, signal) => {
        clearTimeout(limit);
        if (code === 0) resolve(out);
        else reject(new Error(`wrk ended with ${String(code ?? signal)}: ${err}${out.slice(-2000)}`));
      });
    });
    const line = /WRK-JSON (\{.*\})/.exec(stdout)?.[1];
    if (line === undefined) throw new Error(`wrk printed no figures: ${stdout.slice(-2000)}`);
    const r = JSON.parse(line) as {
      requests: number;
      durationUs: number;
      p50us: number;
      p99us: number;
      connectErrors: number;
      readErrors: number;
      writeErrors: number;
      non2xx: number;
      timeouts: number;
      cpuSeconds: number;
      statuses: Record<string, number>;
    };
    const statuses: Record<number, number> = {};
    for (const [k, v] of Object.entries(r.statuses)) statuses[Number(k)] = v;
    // Without the Lua counter, wrk only knows how many were not 2xx/3xx; all others are counted as 200 here.
    if (Object.keys(statuses).length === 0) statuses[200] = r.requests - r.non2xx;
    return {
      requests: r.requests,
      rps: Math.round(r.requests / (r.durationUs / 1e6)),
      p50ms: round(r.p50us / 1000),
      p99ms: round(r.p99us / 1000),
      errors: r.connectErrors + r.readErrors + r.writeErrors,
      timeouts: r.timeouts,
      statuses,
      generatorCpuSeconds: r.cpuSeconds < 0 ? Number.NaN : r.cpuSeconds,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
