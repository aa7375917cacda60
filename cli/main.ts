/**
 * `social-data`: the command-line client (docs/cli.md). Run from a checkout with `npm run cli -- …`,
 * or as the package's bin (`npx social-data …`, cli/bin.mjs).
 */
import { CommanderError } from 'commander';
import { ApiClientError } from '../client';
import { buildProgram } from './program';
import { EXIT, UsageError } from './usage-error';

export async function main(argv: string[]): Promise<number> {
  let code: number = EXIT.ok;
  let interrupts = 0;
  const program = buildProgram({
    env: process.env,
    exit: (c) => void (code = c),
    onSignal: (stop, abort) => {
      const onSignal = () => {
        interrupts += 1;
        if (interrupts === 1) {
          process.stderr.write('\nsocial-data: stopping after the requests in flight (Ctrl-C again to stop now)\n');
          stop();
        } else abort();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
    },
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here too, with their own code 0; every other parse error is a usage error.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`social-data: ${err.message}\n`);
      return EXIT.usage;
    }
    if (err instanceof ApiClientError) {
      process.stderr.write(`social-data: ${err.code} (${err.status}): ${err.message}${err.requestId ? ` [request ${err.requestId}]` : ''}\n`);
      for (const d of err.details ?? []) process.stderr.write(`  ${d.path}: ${d.message}\n`);
      return EXIT.failed;
    }
    process.stderr.write(`social-data: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.failed;
  }
}

if (typeof require !== 'undefined' && require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
