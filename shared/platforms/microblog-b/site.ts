import * as v from 'valibot';
import { matching, parseHostUrl, parsedBy } from '../../validation';

/**
 * microblog-b: the short-text network (scraper not built yet; parameters are validated already).
 * Public URL forms: https://x.com/<screen_name>/status/<id>, also twitter.com.
 */
export const PUBLIC_HOSTS = ['x.com', 'twitter.com'] as const;

export const handleParam = v.pipe(
  matching(/^@?[A-Za-z0-9_]{1,15}$/, 'Must be a handle of 1-15 letters, digits or _ (without the leading @)'),
  v.transform((s) => s.replace(/^@/, '').toLowerCase()),
);

export const noteUrlParam = parsedBy((raw) => {
  const m = parseHostUrl(raw, PUBLIC_HOSTS)?.pathname.match(/^\/(?:[A-Za-z0-9_]{1,15}|i\/web|i)\/status(?:es)?\/(\d{1,20})\/?/);
  return m?.[1] ? { noteId: m[1] } : null;
}, 'Must be a note permalink: https://x.com/<handle>/status/<id>');
