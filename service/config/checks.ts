/** Rules that span several keys, which a per-key schema cannot express. */
import { isDeepStrictEqual } from 'node:util';
import { envNameFor } from './env.js';
import { configLeaves, getPath } from './leaves.js';
import { parsePollingSchedule } from '../domain/channels/polling-schedule.js';

function listeningPorts(config: unknown): { key: string; port: number }[] {
  // TCP ports only: the UDP audit listener may share a number with a TCP one. Audit listeners count when enabled.
  const audit = ['tcp', 'tls'].filter((t) => getPath(config, `auditing.servers.${t}.enabled`) === true).map((t) => `auditing.servers.${t}.port`);
  const keys = ['api.port', 'router.httpsPort', 'router.httpPort', ...audit];
  return keys.flatMap((key) => {
    const port = getPath(config, key);
    return Number.isInteger(port) ? [{ key, port: port as number }] : [];
  });
}

function portClashes(config: unknown): string[] {
  const byPort = new Map<number, string[]>();
  for (const { key, port } of listeningPorts(config)) byPort.set(port, [...(byPort.get(port) ?? []), key]);
  const problems: string[] = [];
  for (const [port, keys] of byPort) {
    if (keys.length < 2) continue;
    const [verb, fix] = keys.length === 2 ? ['are both', 'one of them'] : ['are all', 'all but one'];
    problems.push(`${keys.join(' and ')} ${verb} ${port}: every listening port must be different; change ${fix}`);
  }
  return problems;
}

/**
 * Each named origin must be exactly what a browser sends in its Origin header (`scheme://host[:port]`, lower case,
 * no default port, no path), since allowed origins are compared as exact text; `*` would let any site in.
 */
function corsOriginProblems(origins: unknown): string[] {
  if (!Array.isArray(origins)) return [];
  return origins.flatMap((origin: unknown, i) => {
    if (typeof origin !== 'string') return [];
    const where = `api.corsOrigins[${i}]`;
    if (origin.includes('*')) return [`${where}: "${origin}" has a wildcard; name each console's origin exactly, such as https://console.example:9000`];
    const canonical = originOf(origin);
    if (canonical === null) return [`${where}: "${origin}" is not an origin; write scheme://host[:port] with http or https and no path, such as https://console.example:9000`];
    if (canonical !== origin) return [`${where}: "${origin}" is not written as browsers send it; write "${canonical}" (no path or trailing slash, lower case, no default port)`];
    return [];
  });
}

function originOf(text: string): string | null {
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '') return null;
  if (url.search !== '' || url.hash !== '' || !/^[a-z]+:\/\/[^/]+\/?$/i.test(text)) return null;
  return url.origin;
}

function isSet(value: unknown): boolean {
  return typeof value === 'string' && value !== '';
}

function isZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

function httpUrlProblem(key: string, value: unknown, example: string): string[] {
  if (!isSet(value)) return [];
  const text = value as string;
  if (!URL.canParse(text) || !['http:', 'https:'].includes(new URL(text).protocol)) return [`${key}: "${text}" is not an http or https URL, such as ${example}`];
  return [];
}

/** The time zone, the links in messages and the senders' settings that only make sense together. */
function notificationProblems(config: unknown): string[] {
  const problems: string[] = [];
  const zone = getPath(config, 'timeZone');
  if (isSet(zone) && !isZone(zone as string)) problems.push(`timeZone: "${zone as string}" is not a time zone; use an IANA name such as Africa/Nairobi or Europe/London, or leave it empty for the system's zone`);
  problems.push(...httpUrlProblem('alerts.consoleURL', getPath(config, 'alerts.consoleURL'), 'https://junction.clinic.example:8080'));
  problems.push(...httpUrlProblem('sms.gatewayUrl', getPath(config, 'sms.gatewayUrl'), 'https://sms.example/api/send'));
  if (isSet(getPath(config, 'email.smtp.password')) && !isSet(getPath(config, 'email.smtp.user'))) problems.push('email.smtp.user: must be set when email.smtp.password is set (the login the password belongs to)');
  if (isSet(getPath(config, 'email.smtp.host')) && !isSet(getPath(config, 'email.fromAddress'))) problems.push('email.fromAddress: must be set when email.smtp.host is set (the sender address of every email)');
  return problems;
}

/**
 * OpenID sign-in needs a provider and a client id once switched on. The issuer must be HTTPS except on this machine
 * (a provider on loopback, as in a test), since its discovery document says where passwords are typed.
 */
function openidProblems(config: unknown): string[] {
  const types = getPath(config, 'api.authenticationTypes');
  if (!Array.isArray(types) || !types.includes('openid')) return [];
  const problems: string[] = [];
  const issuer = getPath(config, 'api.openid.issuerUrl');
  if (!isSet(issuer)) problems.push('api.openid.issuerUrl: must be set when openid is in api.authenticationTypes (the provider, such as https://sso.clinic.example/realms/clinic)');
  else if (!URL.canParse(issuer as string)) problems.push(`api.openid.issuerUrl: "${issuer as string}" is not a URL, such as https://sso.clinic.example/realms/clinic`);
  else {
    const url = new URL(issuer as string);
    const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) problems.push(`api.openid.issuerUrl: "${issuer as string}" must be an https URL (plain http only for a provider on this machine)`);
  }
  if (!isSet(getPath(config, 'api.openid.clientId'))) problems.push('api.openid.clientId: must be set when openid is in api.authenticationTypes (the client registered for Junction at the provider)');
  problems.push(...httpUrlProblem('api.openid.callbackUrl', getPath(config, 'api.openid.callbackUrl'), 'https://junction.clinic.example:8080/'));
  const scope = getPath(config, 'api.openid.scope');
  if (typeof scope === 'string' && !scope.split(/\s+/).includes('openid')) problems.push(`api.openid.scope: "${scope}" must include openid`);
  return problems;
}

/**
 * The `storage.postgres` keys with the embedded engine are refused rather than ignored: an instance whose engine was
 * left out would otherwise run on a store of its own while its operator believes it shares the cluster's database.
 */
function engineProblems(config: unknown): string[] {
  if (getPath(config, 'storage.engine') === 'postgres') {
    const problems: string[] = [];
    // Junction's backups copy the embedded engine's files; a schedule that could never write one must not look set.
    if (isSet(getPath(config, 'backup.folder'))) problems.push(`backup.folder: Junction's own backups copy the embedded engine's files; with storage.engine postgres, back up the database with PostgreSQL's tools (pg_dump, or a replica) and keep each instance's keystore secret file, and clear backup.folder`);
    const beat = getPath(config, 'storage.postgres.cluster.heartbeatMs');
    const dead = getPath(config, 'storage.postgres.cluster.deadAfterMs');
    // A survivor would otherwise fail the transactions of an instance that is only between two beats.
    if (typeof beat === 'number' && typeof dead === 'number' && dead < 2 * beat) problems.push(`storage.postgres.cluster.deadAfterMs: ${dead} must be at least twice storage.postgres.cluster.heartbeatMs (${beat}), so that one late heartbeat does not make a live instance count as dead`);
    return problems;
  }
  if (getPath(config, 'storage.engine') !== 'embedded') return [];
  return configLeaves()
    .filter((leaf) => leaf.key.startsWith('storage.postgres.') && !isDeepStrictEqual(getPath(config, leaf.key), leaf.schema.default))
    .map((leaf) => `${leaf.key}: is a setting of the PostgreSQL engine, but storage.engine is embedded; set storage.engine to postgres to use it, or remove it`);
}

/** Problems between keys; values of the wrong type are skipped, since schema validation reports those. */
export function crossFieldProblems(config: unknown): string[] {
  const problems: string[] = [];
  const cert = isSet(getPath(config, 'tls.certFile'));
  const key = isSet(getPath(config, 'tls.keyFile'));
  if (cert && !key) problems.push('tls.keyFile: must be set when tls.certFile is set (the private key of that certificate)');
  if (key && !cert) problems.push('tls.certFile: must be set when tls.keyFile is set, or clear tls.keyFile to use the generated certificate');
  if (getPath(config, 'authentication.enableJWTAuthentication') === true && !isSet(getPath(config, 'authentication.jwt.secretOrPublicKey'))) {
    const env = envNameFor('authentication.jwt.secretOrPublicKey');
    problems.push(
      `authentication.jwt.secretOrPublicKey: must be set (or ${env} / ${env}_FILE) when authentication.enableJWTAuthentication is true`,
    );
  }
  problems.push(...corsOriginProblems(getPath(config, 'api.corsOrigins')));
  problems.push(...openidProblems(config));
  problems.push(...portClashes(config));
  problems.push(...engineProblems(config));
  problems.push(...notificationProblems(config));
  const auditInterface = getPath(config, 'auditEvents.interface');
  if (typeof auditInterface === 'string' && auditInterface !== 'internal' && !isSet(getPath(config, 'auditEvents.host'))) {
    problems.push(`auditEvents.host: must be set when auditEvents.interface is ${auditInterface} (the audit repository to send to)`);
  }
  const backupSchedule = getPath(config, 'backup.schedule');
  if (typeof backupSchedule === 'string' && parsePollingSchedule(backupSchedule) === null) {
    problems.push(`backup.schedule: "${backupSchedule}" is neither a cron expression (such as "0 2 * * *") nor an interval (such as "12 hours")`);
  }
  return problems;
}
