/**
 * One colour per operation of the table, in its order, for the usage charts: thirteen told apart at
 * a glance (hue and lightness differ), Tableau's ten with near-black, yellow and light green. No DOM
 * here: test/e2e/pages.test.ts checks the palette in Node.
 */
import { OPERATIONS } from '../../client/operations.gen';

export const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf', '#111111', '#ffd92f', '#a6d854'] as const;
const IDS: string[] = Object.values(OPERATIONS).map((o) => o.id);
export const colourOf = (operation: string): string => PALETTE[Math.max(0, IDS.indexOf(operation)) % PALETTE.length]!;
