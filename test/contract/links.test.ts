import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Every relative link in README.md and docs/**\/*.md points at a file or folder that exists, and every
 * `#anchor` into a Markdown page (or within the same page) names one of its headings. Links to other
 * sites are not followed (the tests never touch the internet).
 */
const ROOT = path.join(__dirname, '..', '..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return markdownFiles(full);
    return name.endsWith('.md') ? [full] : [];
  });
}

/** The text outside fenced code blocks and code spans: a link written inside code is not a link. */
function withoutCode(md: string): string {
  return md.replace(/^ *(```|~~~)[^\n]*\n[\s\S]*?^ *\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Inline links and images `[text](target "title")`, and reference definitions `[name]: target`. */
export function linkTargets(md: string): string[] {
  const text = withoutCode(md);
  const inline = [...text.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^\s)>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const references = [...text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => m[1]!);
  return [...inline, ...references];
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors(md: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = md.replace(/^ *(```|~~~)[^\n]*\n[\s\S]*?^ *\1[^\n]*$/gm, '');
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const plain = m[1]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = plain.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

/** The broken links of one Markdown file, as `target: why`. */
export function brokenLinks(file: string, md: string = readFileSync(file, 'utf8')): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(md)) {
    if (isExternal(target)) continue;
    const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
    const decoded = decodeURIComponent(rawPath);
    const resolved = decoded ? path.resolve(path.dirname(file), decoded) : file;
    if (decoded && !existsSync(resolved)) {
      broken.push(`${target}: no such file ${path.relative(ROOT, resolved)}`);
      continue;
    }
    if (anchor !== undefined && resolved.endsWith('.md')) {
      const page = resolved === file ? md : readFileSync(resolved, 'utf8');
      if (!headingAnchors(page).has(decodeURIComponent(anchor).toLowerCase())) broken.push(`${target}: no heading #${anchor} in ${path.relative(ROOT, resolved)}`);
    }
  }
  return broken;
}

const files = [path.join(ROOT, 'README.md'), ...markdownFiles(path.join(ROOT, 'docs'))];

test('every relative link in README.md and docs/ resolves, anchors included', () => {
  const report = Object.fromEntries(files.map((f) => [path.relative(ROOT, f), brokenLinks(f)] as const).filter(([, b]) => b.length > 0));
  expect(report).toEqual({});
});

test('no link or path in README.md and docs/ leaves the repository: a reader of the checkout can open each one', () => {
  // Relative paths in the text too (code spans included), such as `../shared/spec/…`: each must
  // resolve inside the checkout and exist there.
  const outside = files.flatMap((f) => {
    const md = readFileSync(f, 'utf8');
    const links = linkTargets(md).filter((t) => !isExternal(t)).map((t) => decodeURIComponent(t.split('#')[0]!)).filter(Boolean);
    const paths = [...md.matchAll(/(?<![.\w])(?:\.\.\/)+[\w.@/-]*[\w/]/g)].map((m) => m[0]);
    return [...links, ...paths]
      .filter((p) => {
        const resolved = path.resolve(path.dirname(f), p);
        return !(resolved === ROOT || resolved.startsWith(ROOT + path.sep)) || !existsSync(resolved);
      })
      .map((p) => `${path.relative(ROOT, f)}: ${p}`);
  });
  expect(outside).toEqual([]);
});

test('the README stays a five-minute read: at most 200 lines (the rest lives in docs/)', () => {
  const lines = readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n');
  expect(lines.length).toBeLessThanOrEqual(200);
});

test('the check reads every page and finds their links', () => {
  expect(files.map((f) => path.relative(ROOT, f))).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'docs/api.md', 'docs/operations/livestream-clip.md']));
  const relative = files.flatMap((f) => linkTargets(readFileSync(f, 'utf8')).filter((t) => !isExternal(t)));
  expect(relative.length).toBeGreaterThan(50);
  expect(relative.filter((t) => t.includes('#')).length).toBeGreaterThan(3);
});

describe('the link check itself', () => {
  const file = path.join(ROOT, 'docs', 'example.md');
  const page = (body: string) => `# Example page\n\n## Load (\`npm run load\`)\n\n## cdk-nag (AwsSolutions)\n\n${body}\n`;

  test('passes good links: files, folders, headings here and elsewhere, external sites', () => {
    const md = page('[a](api.md) [b](operations/) [c](#load-npm-run-load) [d](#cdk-nag-awssolutions) [e](../README.md#deployment) ![f](dashboard.png) [g](https://example.com/x) [h](mailto:a@b.c)\n\n[ref]: api.md#rate-limit');
    expect(brokenLinks(file, md)).toEqual([]);
  });

  test('reports a missing file, a missing heading, and a broken reference definition', () => {
    const md = page('[a](nope.md) [b](#no-such-heading) [c](../README.md#nowhere)\n\n[ref]: ../gone/file.ts');
    expect(brokenLinks(file, md)).toEqual([
      'nope.md: no such file docs/nope.md',
      '#no-such-heading: no heading #no-such-heading in docs/example.md',
      '../README.md#nowhere: no heading #nowhere in README.md',
      '../gone/file.ts: no such file gone/file.ts',
    ]);
  });

  test('ignores links written inside code', () => {
    expect(brokenLinks(file, page('`[a](nope.md)`\n\n```md\n[b](gone.md)\n```'))).toEqual([]);
  });

  test('numbers repeated headings as GitHub does', () => {
    expect([...headingAnchors('## Notes\n\n## Notes\n\n## A `b` c\n')]).toEqual(['notes', 'notes-1', 'a-b-c']);
  });
});
