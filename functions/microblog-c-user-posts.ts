import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, mappers) is loaded on the first live request, not at cold start.
export const handler = createHandler('microblog-c-user-posts', () => import('../shared/platforms/microblog-c/scrape').then((m) => m.scrapeUserPosts));
