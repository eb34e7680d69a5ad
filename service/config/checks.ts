/** Rules that span several keys, which a per-key schema cannot express. */
import { envNameFor } from './env.js';
import { getPath } from './leaves.js';

function listeningPorts(config: unknown): { key: string; port: number }[] {
  // The ATNA listeners (auditing.servers.*) join this list once they exist; until then schema.ts refuses turning them on.
  const keys = ['api.port', 'router.httpsPort', 'router.httpPort'];
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

function isSet(value: unknown): boolean {
  return typeof value === 'string' && value !== '';
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
  problems.push(...portClashes(config));
  return problems;
}
