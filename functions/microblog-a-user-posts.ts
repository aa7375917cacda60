import { createHandler } from '../shared/pipeline';
import { scrapeUserPosts } from '../shared/platforms/microblog-a/scrape';

export const handler = createHandler('microblog-a-user-posts', scrapeUserPosts);
