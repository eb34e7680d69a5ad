/**
 * Mediator registration and heartbeat decisions (SPEC.md "Mediator registration", "Versioning"; COMPAT.md
 * "Mediators"): what a registration does to an existing mediator, when a mediator counts as online, and when a
 * heartbeat answer carries the configuration. Pure.
 */
import semver from 'semver';
import type { ValidationProblem } from '../../contracts/api.js';
import type { MediatorConfigDef, MediatorDefaultChannel, MediatorRouteView, PublicMediator } from '../../contracts/mediators.js';
import { PASSWORD_MASK } from '../util/password-mask.js';
import { channelDraft } from './channel-draft.js';
import { channelProblems } from './channel-rules.js';
import { configDefProblems, configProblems, unmaskConfig } from './mediator-config.js';
import type { ConfigValues } from './mediator-config.js';

/** A registration document after schema validation. */
export interface RegistrationDoc {
  urn: string;
  version: string;
  name: string;
  description?: string;
  endpoints?: MediatorRouteView[];
  defaultChannelConfig?: MediatorDefaultChannel[];
  configDefs?: MediatorConfigDef[];
  config?: ConfigValues;
}

/** What unmasking reads of the registration stored before (storage/records.ts's MediatorRecord has it). */
export type StoredRegistration = Pick<PublicMediator, 'endpoints' | 'defaultChannelConfig' | 'config'>;

/** `create` for a new urn, `upgrade` for a higher version, `unchanged` for an equal or lower one. */
export type RegistrationAction = 'create' | 'upgrade' | 'unchanged';

/** What registering `version` does, given the version already registered (if any). */
export function registrationAction(registered: string | undefined, version: string): RegistrationAction {
  if (registered === undefined) return 'create';
  // A stored version that is somehow not semver is replaced rather than kept forever.
  if (semver.valid(registered) === null) return 'upgrade';
  return semver.gt(version, registered) ? 'upgrade' : 'unchanged';
}

/** Every rule the document breaks, each naming its field under `body`; empty when it can be registered. */
export function registrationProblems(doc: RegistrationDoc, isNew: boolean): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  if (semver.valid(doc.version) === null) problems.push({ path: 'body.version', message: `must be a semantic version such as 1.2.3; "${doc.version}" is not` });
  if (isNew && (doc.endpoints === undefined || doc.endpoints.length === 0)) {
    problems.push({ path: 'body.endpoints', message: 'must list at least one endpoint for a new mediator' });
  }
  const defs = doc.configDefs ?? [];
  const defProblems = configDefProblems(defs, 'body.configDefs');
  problems.push(...defProblems);
  // Values are checked only against definitions that are themselves valid, so one mistake is not reported twice.
  if (doc.config !== undefined && defProblems.length === 0) problems.push(...configProblems(defs, doc.config, 'body.config'));
  const names = new Map<string, number>();
  (doc.defaultChannelConfig ?? []).forEach((channel, i) => {
    const at = `body.defaultChannelConfig.${i}`;
    const first = names.get(channel.name);
    // Default channels are installed and later updated by name.
    if (first !== undefined) problems.push({ path: `${at}.name`, message: `repeats the name of default channel ${first}` });
    else names.set(channel.name, i);
    problems.push(...channelProblems(channelDraft(channel), at));
  });
  return problems;
}

/** True when the last heartbeat is recent enough for the mediator to count as online. */
export function isOnline(lastHeartbeat: Date | undefined, now: number, offlineAfterMs: number): boolean {
  return lastHeartbeat !== undefined && now - lastHeartbeat.getTime() < offlineAfterMs;
}

/**
 * True when a heartbeat answer must carry the configuration: the mediator asked (`config: true`), or the
 * configuration changed since its previous heartbeat (or before its first). Equal times count as changed: sending
 * the configuration twice is harmless, missing a change is not.
 */
export function configDue(record: { _configModifiedTS?: Date; _lastHeartbeat?: Date }, asked: boolean): boolean {
  if (asked) return true;
  const modified = record._configModifiedTS;
  if (modified === undefined) return false;
  return record._lastHeartbeat === undefined || modified.getTime() >= record._lastHeartbeat.getTime();
}

/** The stored password of the route with the same name, wherever the mask was sent back; a mask with none is a problem. */
function unmaskRoutes(routes: readonly MediatorRouteView[], stored: readonly MediatorRouteView[], at: string, problems: ValidationProblem[]): MediatorRouteView[] {
  return routes.map((route, i) => {
    if (route.password !== PASSWORD_MASK) return route;
    const previous = stored.find((r) => r.name === route.name)?.password;
    if (previous !== undefined && previous !== PASSWORD_MASK) return { ...route, password: previous };
    problems.push({ path: `${at}.${i}.password`, message: 'is the mask shown in answers, with no stored password behind it; send the real password' });
    return route;
  });
}

/**
 * A registration sent back as `GET /mediators/:urn` answered it carries masks for passwords (endpoints, default
 * channels' routes, config): each stands for what is stored under the same route name or parameter. Returns the
 * document with the stored passwords put back, and a problem for each mask with nothing stored behind it.
 */
export function unmaskRegistration(doc: RegistrationDoc, stored: StoredRegistration | null): { doc: RegistrationDoc; problems: ValidationProblem[] } {
  const problems: ValidationProblem[] = [];
  const unmasked: RegistrationDoc = { ...doc };
  if (doc.endpoints !== undefined) unmasked.endpoints = unmaskRoutes(doc.endpoints, stored?.endpoints ?? [], 'body.endpoints', problems);
  if (doc.defaultChannelConfig !== undefined) {
    unmasked.defaultChannelConfig = doc.defaultChannelConfig.map((channel, i) => {
      const before = stored?.defaultChannelConfig.find((c) => c.name === channel.name)?.routes ?? [];
      return { ...channel, routes: unmaskRoutes(channel.routes, before, `body.defaultChannelConfig.${i}.routes`, problems) };
    });
  }
  if (doc.config !== undefined) {
    const result = unmaskConfig(doc.configDefs ?? [], doc.config, stored?.config ?? {}, 'body.config');
    unmasked.config = result.config;
    problems.push(...result.problems);
  }
  return { doc: unmasked, problems };
}

const NUMERIC = /^\s*\d{1,5}\s*$/;

function castRoute(route: unknown): void {
  if (typeof route !== 'object' || route === null) return;
  const r = route as Record<string, unknown>;
  if (typeof r.port === 'string' && NUMERIC.test(r.port)) r.port = Number(r.port);
  for (const flag of ['primary', 'secured', 'forwardAuthHeader']) {
    if (r[flag] === 'true') r[flag] = true;
    else if (r[flag] === 'false') r[flag] = false;
  }
}

/**
 * Casts the values OpenHIM's schema casts and mediators in the field rely on: ports given as text ("4000"), route
 * flags given as "true"/"false", and a default channel's only route left unmarked (primary). Everything else is left
 * for validation. Changes `body` in place.
 */
export function castRegistrationValues(body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const doc = body as Record<string, unknown>;
  if (Array.isArray(doc.endpoints)) doc.endpoints.forEach(castRoute);
  if (!Array.isArray(doc.defaultChannelConfig)) return;
  for (const channel of doc.defaultChannelConfig as unknown[]) {
    if (typeof channel !== 'object' || channel === null) continue;
    const c = channel as Record<string, unknown>;
    if (typeof c.tcpPort === 'string' && NUMERIC.test(c.tcpPort)) c.tcpPort = Number(c.tcpPort);
    if (!Array.isArray(c.routes)) continue;
    c.routes.forEach(castRoute);
    // OpenHIM installs a default channel whose only route is not marked primary, and mediators in the field (its own
    // test mediators among them) register such channels; that one route is the primary one.
    const [only] = c.routes as unknown[];
    if (c.routes.length === 1 && typeof only === 'object' && only !== null && !('primary' in only)) (only as Record<string, unknown>).primary = true;
  }
}
