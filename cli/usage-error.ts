/** A mistake in the command line itself: reported before any request is sent, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const EXIT = {
  ok: 0,
  /** Some inputs failed (their errors are in the errors file), or the run stopped on an account error. */
  failed: 1,
  usage: 2,
  /** Stopped by Ctrl-C (SIGINT) or SIGTERM, the state saved. */
  interrupted: 130,
} as const;
