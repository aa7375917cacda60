#!/usr/bin/env node
// The `social-data` command (package.json "bin"; `npm run cli -- …` from a checkout): the TypeScript
// program in cli/main.ts, loaded through tsx so that a checkout runs it without a build step.
// tsx's loader (what `node --import tsx` loads): TypeScript through both the ESM and the CommonJS hooks.
import 'tsx';

// main.ts is CommonJS (the package has no "type"): its exports are the namespace's default.
const mod = await import('./main.ts');
const main = mod.main ?? mod.default.main;
process.exitCode = await main(process.argv.slice(2));
