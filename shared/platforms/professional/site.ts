import { parseHostUrl, parsedBy } from '../../validation';

/**
 * professional: the professional network's logged-out post and article pages (scraper not built yet).
 * Public URL forms: https://www.linkedin.com/posts/<slug>, https://www.linkedin.com/pulse/<slug>
 */
export const PUBLIC_HOSTS = ['linkedin.com'] as const;

export const contentUrlParam = parsedBy((raw) => {
  const m = parseHostUrl(raw, PUBLIC_HOSTS)?.pathname.match(/^\/(posts|pulse)\/([A-Za-z0-9%_.~-]{1,400})\/?$/);
  return m?.[1] && m[2] ? { kind: m[1] === 'posts' ? 'post' : 'article', slug: m[2] } : null;
}, 'Must be a post (https://www.linkedin.com/posts/<slug>) or article (https://www.linkedin.com/pulse/<slug>) URL');
