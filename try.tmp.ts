import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { mapContent } from './shared/platforms/professional/map';
import { Content } from './shared/platforms/professional/resources';
for (const f of process.argv.slice(2)) {
  const c = mapContent(readFileSync(f, 'utf8'), 'https://www.linkedin.com/posts/x');
  console.log(f, JSON.stringify(c, null, 1));
  const r = v.safeParse(Content, c);
  if (!r.success) console.log(JSON.stringify(r.issues.map(i=>[i.message, v.getDotPath(i)])));
}
