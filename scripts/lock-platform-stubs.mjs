// The registry this project's machines reach serves only the Linux builds of some native packages
// (@swc/core-*, @unrs/resolver-binding-*), so `npm install` cannot record the other platforms'
// optional builds in package-lock.json, and `npm ci` then refuses the lock file as out of sync
// (npm/cli#4828, #8320). This adds a lock entry, with os/cpu read from the package name, for each
// such missing optional build. npm never fetches an entry whose os/cpu do not match the machine.
// Run after any `npm install` that rewrites the lock file: `node scripts/lock-platform-stubs.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony'];
const CPU = ['arm64', 'x64', 'arm', 'ia32', 'ppc64', 's390x', 'riscv64', 'loong64'];
const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
let added = 0;
for (const [where, pkg] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (packages[key] || packages[`${where}/${key}`]) continue;
    const tokens = name.split('/').pop().split('-');
    const os = OS.find((o) => tokens.includes(o));
    const cpu = CPU.find((c) => tokens.includes(c)) ?? (tokens.includes('arm') ? 'arm' : undefined);
    if (!os || !cpu) {
      console.warn(`left alone: ${name} (no platform in its name)`);
      continue;
    }
    const libc = os === 'linux' ? (tokens.some((t) => t.startsWith('musl')) ? ['musl'] : ['glibc']) : undefined;
    packages[key] = { version, ...(pkg.dev ? { dev: true } : {}), optional: true, os: [os], cpu: [cpu], ...(libc ? { libc } : {}) };
    added += 1;
  }
}
const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
lock.packages = sorted;
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`added ${added} platform entries to package-lock.json`);
