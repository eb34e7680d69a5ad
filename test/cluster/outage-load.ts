/**
 * What the PostgreSQL outage and freeze tests share: an upstream that echoes what it got (with its length, as most
 * small answers come: read whole, committed, then sent by respond.ts; a streamed answer's status line leaves before
 * the commit, so a commit that fails then can only cut it), and the two channels they load (HTTP and MLLP) with an
 * administrator signed in to the console before the fault.
 */
import { expect } from 'vitest';
import { NEW_ROOT_PASSWORD, ROOT_EMAIL, sessionCookie } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { listeningChannel } from '../messages/hl7-peers.js';

export function echoUpstream(): Promise<Upstream> {
  return httpUpstream((req, res) => {
    void readBody(req).then((body) => {
      const answer = Buffer.from(`got ${body}`);
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': answer.length });
      res.end(answer);
    });
  });
}

/** An HTTP channel at `/<name>/…` to `upstreamPort` and an MLLP channel to `hl7Port`; the console's session cookie. */
export async function loadedChannels(
  a: TestJunction,
  admin: { authorization: string },
  name: string,
  ports: { upstream: number; hl7: number },
): Promise<{ mllp: Awaited<ReturnType<typeof listeningChannel>>; signedIn: { cookie: string } }> {
  const created = await a.request('/channels', {
    method: 'POST',
    headers: admin,
    json: { name: `${name} http`, urlPattern: `^/${name}/.*$`, authType: 'public', methods: ['POST'], routes: [{ name: 'up', host: '127.0.0.1', port: ports.upstream, primary: true }] },
  });
  expect(created.status, created.text).toBe(201);
  const mllp = await listeningChannel(a, admin, ports.hl7, `${name} mllp`);
  const login = await a.request('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } });
  expect(login.status, login.text).toBe(200);
  const signedIn = { cookie: sessionCookie(login) };
  expect((await a.request('/attention', { headers: signedIn })).status).toBe(200);
  return { mllp, signedIn };
}
