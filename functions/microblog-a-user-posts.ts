import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, mappers) is loaded on the first live request, not at cold start.
export const handler = createHandler('microblog-a-user-posts', () => import('../shared/platforms/microblog-a/scrape').then((m) => m.scrapeUserPosts));
