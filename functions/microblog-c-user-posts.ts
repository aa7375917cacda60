import { createHandler } from '../shared/pipeline';
import { scrapeUserPosts } from '../shared/platforms/microblog-c/scrape';

export const handler = createHandler('microblog-c-user-posts', scrapeUserPosts);
