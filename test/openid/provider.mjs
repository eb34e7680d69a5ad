/* global process, URLSearchParams */
/**
 * A real OpenID provider for the sign-in tests (oidc-provider), run in its own process on 127.0.0.1. Plain Node, no
 * test framework. Environment: OIDC_PORT (0 = any), OIDC_CLIENT (JSON: client_id, client_secret, redirect_uris) and
 * OIDC_ACCOUNTS (JSON: account id -> claims). Its login page has one field, the account id, and a button; consent is
 * granted without a page, as a first-party provider would. With OIDC_TLS_CERT and OIDC_TLS_KEY (PEM) it serves HTTPS
 * as https://localhost:<port>. Prints one JSON line {"issuer": ...} once it listens.
 */
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import Provider from 'oidc-provider';

const client = JSON.parse(process.env.OIDC_CLIENT ?? '{}');
const accounts = JSON.parse(process.env.OIDC_ACCOUNTS ?? '{}');
const port = Number(process.env.OIDC_PORT ?? 0);

const tls = process.env.OIDC_TLS_CERT ? { cert: process.env.OIDC_TLS_CERT, key: process.env.OIDC_TLS_KEY } : null;
const server = tls === null ? createServer() : createTlsServer(tls);
await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
const issuer = tls === null ? `http://127.0.0.1:${server.address().port}` : `https://localhost:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [{ grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic', ...client }],
  pkce: { required: () => true },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'given_name', 'family_name'], groups: ['groups'], roles: ['resource_access'] },
  scopes: ['openid', 'email', 'profile', 'groups', 'roles'],
  // Claims go into the ID token too, so a test can map from it without a userinfo call.
  conformIdTokenClaims: false,
  features: { devInteractions: { enabled: false } },
  cookies: { keys: ['test-provider-cookie-key'] },
  async findAccount(_ctx, id) {
    const claims = accounts[id];
    if (claims === undefined) return undefined;
    return { accountId: id, claims: async () => ({ sub: id, ...claims }) };
  },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
});

function page(uid, message) {
  return `<!doctype html><html><head><title>Test provider sign-in</title></head><body>
<h1>Test provider</h1>${message ? `<p role="alert">${message}</p>` : ''}
<form method="post" action="/interaction/${uid}"><label>Account <input name="login" autofocus></label>
<button type="submit">Sign in at the provider</button></form></body></html>`;
}

async function readForm(req) {
  let text = '';
  for await (const chunk of req) text += chunk;
  return new URLSearchParams(text);
}

async function interaction(req, res, uid) {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'consent') {
    const grant = details.grantId === undefined ? new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id }) : await provider.Grant.find(details.grantId);
    if (details.prompt.details.missingOIDCScope) grant.addOIDCScope(details.prompt.details.missingOIDCScope.join(' '));
    if (details.prompt.details.missingOIDCClaims) grant.addOIDCClaims(details.prompt.details.missingOIDCClaims);
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    return;
  }
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'text/html' }).end(page(uid));
    return;
  }
  const login = (await readForm(req)).get('login') ?? '';
  if (accounts[login] === undefined) {
    res.writeHead(200, { 'content-type': 'text/html' }).end(page(uid, 'No such account'));
    return;
  }
  await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
}

const callback = provider.callback();
server.on('request', (req, res) => {
  const match = /^\/interaction\/([\w-]+)$/.exec(req.url ?? '');
  if (match === null) {
    callback(req, res);
    return;
  }
  interaction(req, res, match[1]).catch((error) => {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
  });
});

process.stdout.write(`${JSON.stringify({ issuer })}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
