import * as v from 'valibot';
import { parseHostUrl } from '../../validation';

/**
 * professional: the professional network's logged-out post and article pages (scraper not built yet).
 * Public URL forms: https://www.linkedin.com/posts/<slug>, https://www.linkedin.com/pulse/<slug>
 */
export const PUBLIC_HOSTS = ['linkedin.com'] as const;

export const contentUrlParam = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const m = parseHostUrl(dataset.value, PUBLIC_HOSTS)?.pathname.match(/^\/(posts|pulse)\/([A-Za-z0-9%_.~-]{1,400})\/?$/);
    if (!m?.[1] || !m[2]) {
      addIssue({ message: 'Must be a post (https://www.linkedin.com/posts/<slug>) or article (https://www.linkedin.com/pulse/<slug>) URL' });
      return NEVER;
    }
    return { kind: m[1] === 'posts' ? 'post' : 'article', slug: m[2] };
  }),
);
