import * as v from 'valibot';
import { parseHostUrl } from '../../validation';

/**
 * linkpage: the link-in-bio page builder (scraper not built yet; identification tentative).
 * Public URL form: https://pillar.io/<username>
 */
export const PUBLIC_HOSTS = ['pillar.io'] as const;

export const pageUrlParam = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const m = parseHostUrl(dataset.value, PUBLIC_HOSTS)?.pathname.match(/^\/([A-Za-z0-9_.-]{1,64})\/?$/);
    if (!m?.[1]) {
      addIssue({ message: 'Must be a creator page URL: https://pillar.io/<username>' });
      return NEVER;
    }
    return { username: m[1].toLowerCase() };
  }),
);
