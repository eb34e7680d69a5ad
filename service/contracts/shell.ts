/** Messages between the service and the Electron shell that supervises it (over the child process's IPC channel). */

/** Sent once, when every listener is up. */
export interface ServiceReadyMessage {
  type: 'ready';
  /** Base URL of the management API and console, e.g. https://127.0.0.1:8080 */
  apiUrl: string;
  version: string;
  /** SHA-256 of the management API's certificate (colon-separated hex), for the shell to pin; null over plain HTTP. */
  certificateFingerprint256: string | null;
}

/** Sent when the management API starts serving a new certificate (keystore upload): the shell moves its pin. */
export interface ServiceCertificateMessage {
  type: 'certificate';
  /** SHA-256 of the certificate the API now serves (colon-separated hex). */
  certificateFingerprint256: string;
}

/**
 * Sent by the shell to ask for a clean stop. On Windows a signal cannot be caught (child.kill() ends the process
 * at once), so the shell asks over IPC instead; elsewhere it sends SIGTERM.
 */
export interface ServiceStopMessage {
  type: 'stop';
}

/**
 * The exit code with which the service ends after `POST /restart`: it stopped cleanly and wants to be started again
 * at once. The desktop shell starts it again without counting a crash; under systemd, `Restart=on-failure` (or
 * `RestartForceExitStatus=75`) does. A type, so that the service and the shell (which imports only types from here)
 * both pin the same number: 75 is EX_TEMPFAIL, "try again".
 */
export type RestartExitCode = 75;

/** What the desktop shell's preload script exposes to the console as `window.junctionShell` (absent in a browser). */
export interface JunctionShellInfo {
  kind: 'electron';
  /** Version of the desktop app (the same build as the service). */
  appVersion: string;
  /** Node's platform name of the machine running the app: win32, darwin, linux. */
  platform: string;
}
