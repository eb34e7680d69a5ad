/** What `GET /logs` answers (OpenHIM's logs-view shape) and the levels it filters on. Import with `import type`. */

/** A log level by name, least to most severe. */
export type LogLevelName = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/** One line of Junction's own log. */
export interface LogEntry {
  message: string;
  /** ISO 8601. */
  timestamp: string;
  level: LogLevelName;
  /** Everything else the line carried (component, ids, error details); secrets were redacted when it was written. */
  meta: Record<string, unknown>;
  /** Which process wrote it: always `junction` (OpenHIM says `master` or `worker<N>`). */
  label: string;
}
