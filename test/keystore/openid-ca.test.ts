/**
 * An OpenID provider with a certificate from the clinic's own CA: sign-in works once that CA is in the keystore,
 * through discovery and the token exchange alike, and no longer once it is removed (no restart either way).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { freePorts } from '../helpers/process.js';
import { signInAtProvider, startProvider } from '../openid/provider.js';
import type { TestProvider } from '../openid/provider.js';

const SECRET = 'a-client-secret-for-the-tests-only';

describe('an OpenID provider whose certificate only a keystore CA vouches for', () => {
  const providerTls = generateSelfSigned('localhost');
  let provider: TestProvider;
  let t: TestJunction;
  let admin: { authorization: string };

  beforeAll(async () => {
    const [port = 0] = await freePorts(1);
    t = await startJunction({
      api: {
        authenticationTypes: ['basic', 'local', 'openid'],
        openid: { issuerUrl: `https://localhost:${port}`, clientId: 'junction', clientSecret: SECRET, scope: 'openid email', displayName: 'Clinic SSO', createUsers: true },
      },
    });
    admin = { authorization: await unlockRoot(t) };
    provider = await startProvider({
      port,
      tls: providerTls,
      client: { client_id: 'junction', client_secret: SECRET, redirect_uris: [`${t.url}/`] },
      accounts: { amina: { email: 'amina@clinic.example' } },
    });
  });
  afterAll(async () => {
    await t?.destroy();
    await provider?.stop();
  });

  const startSignIn = () => t.request('/authenticate/openid/start');

  it('is refused as unreachable until its CA is trusted, then signs in, and is refused again once the CA is removed', async () => {
    const untrusted = await startSignIn();
    expect(untrusted.status).toBe(502);
    expect(JSON.stringify(untrusted.body)).toMatch(/OPENID_PROVIDER_UNAVAILABLE/);
    expect(JSON.stringify(untrusted.body)).toMatch(/certificate/i);

    const added = await t.request('/keystore/ca/cert', { method: 'POST', headers: admin, json: { cert: providerTls.cert } });
    expect(added.status).toBe(201);
    const started = await startSignIn();
    expect(started.status).toBe(200);
    const cookie = (started.headers.getSetCookie().find((c) => c.startsWith('junction.openid=')) ?? '').split(';')[0] ?? '';
    const back = await signInAtProvider((started.body as { url: string }).url, 'amina', `${t.url}/`, { ca: providerTls.cert });
    // The code is exchanged for tokens over the same trusted connection.
    const finished = await t.request('/authenticate/openid', { method: 'POST', headers: { cookie }, json: { code: back.searchParams.get('code'), state: back.searchParams.get('state') } });
    expect(finished.status).toBe(200);
    expect(finished.body).toMatchObject({ user: { email: 'amina@clinic.example' } });

    const id = (added.body as { added: { _id: string }[] }).added[0]?._id ?? '';
    expect((await t.request(`/keystore/ca/${id}`, { method: 'DELETE', headers: admin })).status).toBe(200);
    // The provider's settings were discovered already; the next token exchange is what meets the certificate.
    const next = await startSignIn();
    expect(next.status).toBe(200);
    const nextCookie = (next.headers.getSetCookie().find((c) => c.startsWith('junction.openid=')) ?? '').split(';')[0] ?? '';
    const nextBack = await signInAtProvider((next.body as { url: string }).url, 'amina', `${t.url}/`, { ca: providerTls.cert });
    const refused = await t.request('/authenticate/openid', { method: 'POST', headers: { cookie: nextCookie }, json: { code: nextBack.searchParams.get('code'), state: nextBack.searchParams.get('state') } });
    expect(refused.status).toBe(502);
    expect(JSON.stringify(refused.body)).toMatch(/OPENID_PROVIDER_UNAVAILABLE/);
  });
});
