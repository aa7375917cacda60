import { parseHostUrl, parsedBy } from '../../validation';

/**
 * linkpage: the link-in-bio page builder (scraper not built yet; identification tentative).
 * Public URL form: https://pillar.io/<username>
 */
export const PUBLIC_HOSTS = ['pillar.io'] as const;

export const pageUrlParam = parsedBy((raw) => {
  const m = parseHostUrl(raw, PUBLIC_HOSTS)?.pathname.match(/^\/([A-Za-z0-9_.-]{1,64})\/?$/);
  return m?.[1] ? { username: m[1].toLowerCase() } : null;
}, 'Must be a creator page URL: https://pillar.io/<username>');
