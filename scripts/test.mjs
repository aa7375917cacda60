// `npm test`: the type check and jest at the same time (the type check takes ~25 s of one core, and
// jest's workers spend much of their time waiting on DynamoDB Local, timers and child processes).
// Arguments go to jest. Fails when either fails; the type errors are printed after jest's report.
import { spawn } from 'node:child_process';

const bin = (name) => new URL(`../node_modules/.bin/${name}`, import.meta.url).pathname;
const run = (cmd, args, stdio) =>
  new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio });
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr?.on('data', (d) => (out += d));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out }));
  });

const [types, tests] = await Promise.all([
  run(bin('tsc'), ['--noEmit'], ['ignore', 'pipe', 'pipe']),
  run(bin('jest'), process.argv.slice(2), 'inherit'),
]);
if (types.code !== 0) process.stderr.write(`\ntsc --noEmit failed:\n${types.out}`);
else process.stderr.write('tsc --noEmit: no type errors\n');
process.exit(types.code || tests.code);
