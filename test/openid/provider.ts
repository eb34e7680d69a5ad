/**
 * Starts the test OpenID provider (provider.mjs, oidc-provider) as its own process on 127.0.0.1, and walks its
 * sign-in pages over HTTP the way a browser would (cookies kept, redirects followed) for tests without Chromium.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Agent, fetch } from 'undici';

export interface TestProvider {
  issuer: string;
  stop(): Promise<void>;
}

export interface ProviderOptions {
  port: number;
  client: { client_id: string; client_secret?: string; redirect_uris: string[]; token_endpoint_auth_method?: string };
  /** Account id (typed on the login page) to its claims. */
  accounts: Record<string, Record<string, unknown>>;
  /** Serve HTTPS with this pair, as https://localhost:<port>. */
  tls?: { cert: string; key: string };
}

const SCRIPT = fileURLToPath(new URL('./provider.mjs', import.meta.url));

/** Starts the provider and resolves once it listens; rejects with its output if it exits first. */
export async function startProvider(options: ProviderOptions): Promise<TestProvider> {
  const child = spawn(process.execPath, [SCRIPT], {
    env: {
      PATH: process.env.PATH ?? '',
      OIDC_PORT: String(options.port),
      OIDC_CLIENT: JSON.stringify(options.client),
      OIDC_ACCOUNTS: JSON.stringify(options.accounts),
      ...(options.tls === undefined ? {} : { OIDC_TLS_CERT: options.tls.cert, OIDC_TLS_KEY: options.tls.key }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = once(child, 'exit');
  const issuer = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line !== undefined) resolve((JSON.parse(line) as { issuer: string }).issuer);
    });
    void exited.then(() => reject(new Error(`the test OpenID provider exited before listening: ${stderr}`)));
  });
  return {
    issuer,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Follows an authorization URL through the provider's login (typing `login`) and its consent, keeping cookies, and
 * returns the URL the provider sends the browser back to (with `code` and `state`), without opening it.
 */
export async function signInAtProvider(authorizationUrl: string, login: string, redirectPrefix: string, trust?: { ca: string }): Promise<URL> {
  const dispatcher = trust === undefined ? undefined : new Agent({ connect: { ca: trust.ca } });
  try {
    return await walk(authorizationUrl, login, redirectPrefix, dispatcher);
  } finally {
    await dispatcher?.close();
  }
}

async function walk(authorizationUrl: string, login: string, redirectPrefix: string, dispatcher: Agent | undefined): Promise<URL> {
  const jar = new Map<string, string>();
  let url = new URL(authorizationUrl);
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 12; hop++) {
    const response = await fetch(url, {
      method: body === undefined ? 'GET' : 'POST',
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
      ...(body === undefined ? {} : { body: body.toString() }),
      ...(dispatcher === undefined ? {} : { dispatcher }),
    });
    for (const header of response.headers.getSetCookie()) {
      const [pair = ''] = header.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const location = response.headers.get('location');
    if (location !== null) {
      await response.arrayBuffer();
      body = undefined;
      url = new URL(location, url);
      if (url.href.startsWith(redirectPrefix)) return url;
      continue;
    }
    const page = await response.text();
    if (response.status !== 200 || !page.includes('name="login"')) throw new Error(`unexpected provider answer ${response.status}: ${page.slice(0, 300)}`);
    if (page.includes('No such account')) throw new Error(`the provider has no account ${login}`);
    body = new URLSearchParams({ login });
  }
  throw new Error('the provider did not send the browser back');
}
