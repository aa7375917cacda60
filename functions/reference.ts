import path from 'node:path';
import { referenceAssetsFromDir, referenceHandler } from '../shared/public/reference-page';

// GET /docs and its assets: the API reference page; the stack copies the built page (reference/build.ts) next to this bundle.
export const handler = referenceHandler(() => referenceAssetsFromDir(path.join(__dirname, 'reference')));
