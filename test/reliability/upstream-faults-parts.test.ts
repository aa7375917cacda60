import { readFileSync, readdirSync } from 'node:fs';
import { PARTS } from './upstream-faults';

// The fault matrix runs in PARTS files, one part each: a part without its file would leave
// operations out of the matrix without any test failing.
test('one test file per part of the upstream fault matrix, each running its own part', () => {
  const files = readdirSync(__dirname).filter((f) => /^upstream-faults-\d+\.test\.ts$/.test(f)).sort();
  expect(files).toEqual(Array.from({ length: PARTS }, (_, i) => `upstream-faults-${i + 1}.test.ts`).sort());
  for (const file of files) {
    const n = Number(/(\d+)/.exec(file)![1]);
    const text = readFileSync(`${__dirname}/${file}`, 'utf8');
    expect({ file, call: /faultMatrix\((\d+), PARTS\)/.exec(text)?.[1] }).toEqual({ file, call: String(n) });
  }
});
