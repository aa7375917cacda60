import { createHandler } from '../shared/pipeline';
import { scrapeClip } from '../shared/platforms/livestream/scrape';

export const handler = createHandler('livestream-clip', scrapeClip);
