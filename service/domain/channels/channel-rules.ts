/**
 * The rules a complete channel (defaults applied, updates merged) must meet before it is stored (SPEC.md "Channel",
 * COMPAT.md). Pure: every caller that writes channels (the API, mediator default channels, metadata import) asks
 * these, so an update can never leave an invalid channel behind.
 */
import { isIP } from 'node:net';
import type { ValidationProblem } from '../../contracts/api.js';
import type { Channel } from '../../contracts/channels.js';
import { channelKind, listenerOf } from './channel-kinds.js';
import { parsePollingSchedule } from './polling-schedule.js';
import { patternProblem } from '../util/safe-pattern.js';
import { parseStatusCodesCheck } from './status-codes-check.js';

/** A channel as it would be stored, without the fields the service assigns (nor the listener, which answers compute). */
export type ChannelDraft = Omit<Channel, '_id' | 'createdAt' | 'updatedAt' | 'updatedBy' | 'listener' | 'admitsNobody'>;

export interface PathTransform {
  /** Pattern source, run by safe-pattern.ts. */
  from: string;
  to: string;
  global: boolean;
}

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'] as const;
export const TIMEOUT_MAX_MS = 3_600_000;
export const MAX_BODY_AGE_DAYS_MAX = 36_500;

/** Splits on unescaped slashes; `\/` becomes `/`, other escapes are kept for the pattern. */
function splitOnSlashes(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c === '\\' && i + 1 < text.length) {
      const next = text.charAt(i + 1);
      current += next === '/' ? '/' : c + next;
      i++;
    } else if (c === '/') {
      parts.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}

const TRANSFORM_FORM = 'must be s/from/to or s/from/to/g';

function splitPathTransform(expr: string): PathTransform | null {
  if (!expr.startsWith('s/')) return null;
  const parts = splitOnSlashes(expr.slice(2));
  if (parts.length < 2 || parts.length > 3) return null;
  const [from = '', to = '', flags = ''] = parts;
  if (from === '' || (flags !== '' && flags !== 'g')) return null;
  return { from, to, global: flags === 'g' };
}

/** Why a `pathTransform` cannot be used (malformed, or a `from` pattern that is refused), or null when it can. */
export function pathTransformProblem(expr: string): string | null {
  const transform = splitPathTransform(expr);
  if (transform === null) return TRANSFORM_FORM;
  const problem = patternProblem(transform.from);
  return problem === null ? null : `has a "from" pattern that ${problem}`;
}

/** Parses a sed-like `s/from/to`, `s/from/to/` or `s/from/to/g`; null when malformed or `from` is a refused pattern. */
export function parsePathTransform(expr: string): PathTransform | null {
  const transform = splitPathTransform(expr);
  return transform === null || patternProblem(transform.from) !== null ? null : transform;
}

/** True for a cron expression of 5 or 6 fields that node-schedule accepts, or `<n> <unit>` (seconds, minutes, hours, days). */
export function isPollingSchedule(schedule: string): boolean {
  return parsePollingSchedule(schedule) !== null;
}

function integerIn(value: number | undefined, min: number, max: number): boolean {
  return value === undefined || (Number.isInteger(value) && value >= min && value <= max);
}

const set = (value: string | undefined): value is string => value !== undefined && value !== '';

function routeProblems(channel: ChannelDraft, at: string): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  if (channel.routes.length === 0) return [{ path: `${at}.routes`, message: 'must contain at least one route' }];
  const primaries = channel.routes.filter((r) => r.status === 'enabled' && r.primary).map((r) => r.name);
  if (primaries.length !== 1) {
    const found = primaries.length === 0 ? 'none is' : `${primaries.join(', ')} are`;
    problems.push({ path: `${at}.routes`, message: `must have exactly one primary route among the enabled routes; ${found}` });
  }
  const names = new Map<string, number>();
  channel.routes.forEach((route, i) => {
    const here = `${at}.routes.${i}`;
    const first = names.get(route.name);
    // Names identify routes across updates (the masked password is kept by name), so they must be unique.
    if (first !== undefined) problems.push({ path: `${here}.name`, message: `repeats the name of route ${first}` });
    else names.set(route.name, i);
    if (!integerIn(route.port, 1, 65535)) problems.push({ path: `${here}.port`, message: 'must be an integer from 1 to 65535' });
    // OpenHIM 8 routes may be Kafka routes; Junction cannot send them yet, and must not pretend to.
    if ((route.type as string) === 'kafka') problems.push({ path: `${here}.type`, message: 'Kafka routes are not supported yet' });
    if (set(route.statusCodesCheck)) {
      if (route.waitPrimaryResponse !== true) {
        problems.push({ path: `${here}.statusCodesCheck`, message: 'applies only to a route that waits for the primary; set waitPrimaryResponse to true' });
      } else if (parseStatusCodesCheck(route.statusCodesCheck) === null) {
        problems.push({ path: `${here}.statusCodesCheck`, message: 'must be status codes (such as 201) or ranges (such as 2**), separated by commas' });
      }
    }
    if (set(route.path) && set(route.pathTransform)) {
      problems.push({ path: `${here}.pathTransform`, message: 'cannot be set together with path; use one of them' });
    } else if (set(route.pathTransform)) {
      const problem = pathTransformProblem(route.pathTransform);
      if (problem !== null) problems.push({ path: `${here}.pathTransform`, message: problem });
    }
  });
  return problems;
}

/** The channel's own patterns (not its path transforms) that are refused; an empty urlPattern matches everything. */
function patternProblems(channel: Pick<ChannelDraft, 'urlPattern' | 'matchContentRegex'>, at: string): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const url = patternProblem(channel.urlPattern);
  if (url !== null) problems.push({ path: `${at}.urlPattern`, message: url });
  const content = set(channel.matchContentRegex) ? patternProblem(channel.matchContentRegex) : null;
  if (content !== null) problems.push({ path: `${at}.matchContentRegex`, message: content });
  return problems;
}

function matchingProblems(channel: ChannelDraft, at: string): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  if (channelKind(channel.type)?.urlPattern === true && channel.urlPattern === '') problems.push({ path: `${at}.urlPattern`, message: `is required for ${channel.type} channels` });
  problems.push(...patternProblems(channel, at));
  const xpath = set(channel.matchContentXpath);
  const json = set(channel.matchContentJson);
  if (xpath && json) problems.push({ path: `${at}.matchContentJson`, message: 'cannot be combined with matchContentXpath; they share matchContentValue' });
  if ((xpath || json) && !set(channel.matchContentValue)) {
    problems.push({ path: `${at}.matchContentValue`, message: `is required with ${xpath ? 'matchContentXpath' : 'matchContentJson'}` });
  }
  if (!xpath && !json && set(channel.matchContentValue)) {
    problems.push({ path: `${at}.matchContentValue`, message: 'needs matchContentXpath or matchContentJson' });
  }
  const seen = new Map<string, number>();
  channel.methods.forEach((method, i) => {
    const upper = method.toUpperCase();
    const first = seen.get(upper);
    if (!(HTTP_METHODS as readonly string[]).includes(upper)) {
      problems.push({ path: `${at}.methods.${i}`, message: `must be one of: ${HTTP_METHODS.join(', ')}` });
    } else if (first !== undefined) problems.push({ path: `${at}.methods.${i}`, message: `repeats ${upper} (item ${first})` });
    else seen.set(upper, i);
  });
  channel.whitelist.forEach((ip, i) => {
    if (isIP(ip) === 0) problems.push({ path: `${at}.whitelist.${i}`, message: 'must be an IPv4 or IPv6 address' });
  });
  return problems;
}

function settingProblems(channel: ChannelDraft, at: string): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const range = (field: keyof ChannelDraft, value: number | undefined, min: number, max: number) => {
    if (!integerIn(value, min, max)) {
      problems.push({ path: `${at}.${field}`, message: max === Infinity ? `must be an integer of at least ${min}` : `must be an integer from ${min} to ${max}` });
    }
  };
  range('priority', channel.priority, 1, Infinity);
  range('timeout', channel.timeout, 1, TIMEOUT_MAX_MS);
  range('maxBodyAgeDays', channel.maxBodyAgeDays, 1, MAX_BODY_AGE_DAYS_MAX);
  range('autoRetryPeriodMinutes', channel.autoRetryPeriodMinutes, 1, Infinity);
  // 0 means unlimited, as in OpenHIM.
  range('autoRetryMaxAttempts', channel.autoRetryMaxAttempts, 0, Infinity);
  const socket = listenerOf(channel) !== null;
  if (socket && channel.tcpPort === undefined) {
    problems.push({ path: `${at}.tcpPort`, message: `is required for ${channel.type} channels` });
  }
  range('tcpPort', channel.tcpPort, 1, 65535);
  if (!socket && channel.tcpFraming !== undefined && channel.tcpFraming !== 'auto') {
    problems.push({ path: `${at}.tcpFraming`, message: 'applies only to tcp and tls channels' });
  }
  if (channelKind(channel.type)?.clientCertificates !== true && channel.requireClientCertificate === true) {
    problems.push({ path: `${at}.requireClientCertificate`, message: 'applies only to tls channels (a tcp channel has no TLS handshake to present one in)' });
  }
  if (channelKind(channel.type)?.entry === 'poll') {
    if (!set(channel.pollingSchedule)) problems.push({ path: `${at}.pollingSchedule`, message: 'is required for polling channels' });
    else if (!isPollingSchedule(channel.pollingSchedule)) {
      problems.push({ path: `${at}.pollingSchedule`, message: 'must be a cron expression of 5 or 6 fields, or "<number> <seconds|minutes|hours|days>"' });
    }
  }
  channel.rewriteUrlsConfig.forEach((rule, i) => {
    const problem = set(rule.pathTransform) ? pathTransformProblem(rule.pathTransform) : null;
    if (problem !== null) problems.push({ path: `${at}.rewriteUrlsConfig.${i}.pathTransform`, message: problem });
  });
  channel.alerts.forEach((alert, i) => {
    if (alert.condition === 'status' && !set(alert.status)) problems.push({ path: `${at}.alerts.${i}.status`, message: 'is required for a status alert' });
    if (alert.condition === 'refusals' && alert.failureRate !== undefined) problems.push({ path: `${at}.alerts.${i}.failureRate`, message: 'does not apply to a refusals alert (it fires on any refusal)' });
  });
  return problems;
}

/** Every rule the channel breaks, each naming its field under `at` (e.g. `body.routes.1.primary`); empty when valid. */
export function channelProblems(channel: ChannelDraft, at = 'body'): ValidationProblem[] {
  return [...settingProblems(channel, at), ...matchingProblems(channel, at), ...routeProblems(channel, at)];
}

/**
 * Every pattern of a stored channel that cannot be used (URL and content patterns, route and rewrite path
 * transforms), named by field. Channels saved before patterns ran in linear time may hold one; it never matches.
 */
export function unusablePatterns(channel: Pick<ChannelDraft, 'urlPattern' | 'matchContentRegex' | 'routes' | 'rewriteUrlsConfig'>): ValidationProblem[] {
  const problems = patternProblems(channel, 'channel');
  const transforms = [
    ...channel.routes.map((r, i) => ({ path: `channel.routes.${i}.pathTransform`, expr: r.pathTransform })),
    ...channel.rewriteUrlsConfig.map((r, i) => ({ path: `channel.rewriteUrlsConfig.${i}.pathTransform`, expr: r.pathTransform })),
  ];
  for (const { path, expr } of transforms) {
    const problem = set(expr) ? pathTransformProblem(expr) : null;
    if (problem !== null) problems.push({ path, message: problem });
  }
  return problems;
}
