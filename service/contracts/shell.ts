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
