/** The one error type configuration problems surface as, so start-up can print them and exit cleanly. */

/** Thrown when the configuration cannot be used; `message` lists every problem, one per line. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly problems: string[];

  constructor(problems: readonly string[]) {
    // A problem spanning lines would break the one-problem-per-line promise, so flatten any stray newlines.
    const flat = problems.map((p) => p.replace(/\s*\r?\n\s*/g, ' '));
    super(`Invalid configuration:\n${flat.map((p) => `- ${p}`).join('\n')}`);
    this.problems = flat;
  }
}
