import * as v from 'valibot';
import { operations, type Operation } from '../../shared/operations';

/**
 * Every parameter schema of the table reads any string without throwing: a malformed value is a
 * validation issue (422, or 400 for a cursor), never an exception that would surface as a 5xx.
 * (The fuzz suite found handle parsers that threw on a broken %-escape inside a profile URL.)
 */
const HOSTILE = [
  'https://x.com/quietcove%%',
  'https://www.tiktok.com/@quiet.one%u0041',
  'https://bsky.app/profile/%E0%A4%A',
  'https://kick.com/%ZZ/clips/clip_01JQ7ZK3M8W4TYV5R2N6P9XBCD',
  'https://www.linkedin.com/posts/%%%',
  'https://pillar.io/%C0%AF',
  'https://truthsocial.com/@%',
  '%',
  '\u0000',
  '\ud800',
  '@'.repeat(5000),
];

describe.each((operations as readonly Operation[]).filter((op) => Object.keys(op.params).length).map((op) => [op.id, op] as const))('%s', (_id, op) => {
  test.each(Object.keys(op.params))('%s never throws on a hostile value', (name) => {
    for (const value of HOSTILE) expect(() => v.safeParse(op.params[name]!.schema, value)).not.toThrow();
  });
});
