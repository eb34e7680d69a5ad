/**
 * The console window and the rules every page in the app lives under: the service's certificate pinned by
 * fingerprint, navigation kept to the service's origin, other web links sent to the system browser, permissions
 * refused. The decisions themselves are in security.ts.
 */
import { BrowserWindow, shell } from 'electron';
import type { Session, WebContents, WebPreferences } from 'electron';
import { allowPermission, consoleUrl, decideCertificate, decideNavigation, decideRedirect, httpOrigin, isAppUrl } from './security.js';
import type { PinnedService } from './security.js';
import { statusPageUrl } from './status.js';
import type { ServiceState } from './supervisor.js';

/** Certificate verification results Chromium understands: 0 = trusted, -2 = refused (net::ERR_FAILED). */
const CERT_TRUSTED = 0;
const CERT_REFUSED = -2;

/** Passes the current pin (null before the service is first ready). */
export type PinSource = () => PinnedService | null;

/** Pins the service's certificate and refuses permissions for every page in `ses`. */
export function secureSession(ses: Session, pinned: PinSource): void {
  ses.setCertificateVerifyProc((request, callback) => {
    const decision = decideCertificate(pinned(), {
      hostname: request.hostname,
      pem: request.certificate.data,
      fingerprint: request.certificate.fingerprint,
    });
    callback(decision === 'trust' ? CERT_TRUSTED : CERT_REFUSED);
  });
  ses.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(allowPermission(permission, details.requestingUrl, pinned()?.origin ?? null));
  });
  ses.setPermissionCheckHandler((_contents, permission, requestingOrigin) => allowPermission(permission, requestingOrigin, pinned()?.origin ?? null));
  ses.setDevicePermissionHandler(() => false);
}

/** Keeps `contents` (a window, or anything it opens) on the service's origin. */
export function guardContents(contents: WebContents, pinned: PinSource, preferences: WebPreferences): void {
  const origin = () => pinned()?.origin ?? null;
  contents.on('will-navigate', (event) => {
    const decision = decideNavigation(event.url, origin());
    if (decision === 'allow') return;
    event.preventDefault();
    if (decision === 'open-external') void shell.openExternal(event.url);
  });
  // Frames inside a page never leave the origin, and never hand a URL to the browser.
  contents.on('will-frame-navigate', (event) => {
    if (!event.isMainFrame && !isAppUrl(event.url, origin())) event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (decideRedirect(event.url, origin()) === 'deny') event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const decision = decideNavigation(url, origin());
    if (decision === 'allow') return { action: 'allow', overrideBrowserWindowOptions: { webPreferences: preferences } };
    if (decision === 'open-external') void shell.openExternal(url);
    return { action: 'deny' };
  });
}

export interface ConsoleWindowOptions {
  session: Session;
  /** Compiled preload script (dist/main/preload.cjs). */
  preload: string;
  icon?: string;
  appVersion: string;
  /** Shown on the failure page. */
  logsDir: string;
  /** Where the window reports load failures (the shell log). */
  report: (text: string) => void;
}

/** The one console window: shows the console once the service is ready, a status page until then. */
export class ConsoleWindow {
  readonly #options: ConsoleWindowOptions;
  #window: BrowserWindow | null = null;
  #state: ServiceState = { phase: 'idle' };
  #pinned: PinnedService | null = null;
  #closing = false;

  constructor(options: ConsoleWindowOptions) {
    this.#options = options;
  }

  /** The service's origin and certificate from its last ready message. */
  readonly pinned: PinSource = () => this.#pinned;

  /** The preferences of every window in the app: isolated, sandboxed, no Node. */
  get preferences(): WebPreferences {
    return {
      preload: this.#options.preload,
      session: this.#options.session,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      sandbox: true,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      additionalArguments: [`--junction-app-version=${this.#options.appVersion}`],
    };
  }

  /** Shows the window (creating it if needed) and brings it to the front. */
  show(): void {
    const window = this.#window ?? this.#create();
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  }

  /** Follows the service: the console once it runs, the status page while it starts or after it failed. */
  update(state: ServiceState): void {
    this.#state = state;
    if (state.phase === 'running') {
      const origin = httpOrigin(state.ready.apiUrl);
      if (origin !== null) this.#pinned = { origin, fingerprint256: state.ready.certificateFingerprint256 };
    }
    if (this.#window !== null) this.#render(this.#window);
  }

  /** Lets the window close for real (at quit); until then closing only hides it, and the service keeps running. */
  allowClose(): void {
    this.#closing = true;
  }

  #create(): BrowserWindow {
    const window = new BrowserWindow({
      width: 1280,
      height: 800,
      minWidth: 800,
      minHeight: 600,
      show: false,
      title: 'Junction',
      backgroundColor: '#f4f7f7',
      ...(this.#options.icon === undefined ? {} : { icon: this.#options.icon }),
      webPreferences: this.preferences,
    });
    window.on('close', (event) => {
      if (this.#closing) return;
      event.preventDefault();
      window.hide();
    });
    window.on('closed', () => {
      if (this.#window === window) this.#window = null;
    });
    this.#window = window;
    this.#render(window);
    return window;
  }

  #render(window: BrowserWindow): void {
    const state = this.#state;
    const showing = window.webContents.getURL();
    if (state.phase === 'running') {
      // After a restart at the same address the console reconnects by itself; reloading would lose what was typed.
      if (!isAppUrl(showing, this.#pinned?.origin ?? null)) this.#load(window, consoleUrl(state.ready.apiUrl));
      return;
    }
    if (state.phase === 'failed' || !isAppUrl(showing, this.#pinned?.origin ?? null)) {
      this.#load(window, statusPageUrl(state, this.#options.logsDir));
    }
  }

  #load(window: BrowserWindow, url: string): void {
    window.loadURL(url).catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      // ERR_ABORTED: a newer load replaced this one, which is expected when the state changes quickly.
      if (message.includes('ERR_ABORTED') || window.isDestroyed()) return;
      this.#options.report(`the window could not load ${url.startsWith('data:') ? 'the status page' : url}: ${message}`);
      if (!url.startsWith('data:')) {
        const reason = `The console could not be loaded from ${url}: ${message}`;
        void window.loadURL(statusPageUrl({ phase: 'failed', reason }, this.#options.logsDir)).catch(() => undefined);
      }
    });
  }
}
