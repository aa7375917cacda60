import path from 'node:path';
import { assetsFromDir, dashboardHandler } from '../shared/public/dashboard-assets';

// GET /dashboard and its pages and assets; the stack copies the built assets next to this bundle.
export const handler = dashboardHandler(() => assetsFromDir(path.join(__dirname, 'dashboard')));
