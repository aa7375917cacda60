import { parseDocument } from '../../scrape/html';
import { type Found, type Where, bulletin } from './map';
import type { DailyData } from './resources';
import { BULLETIN_FIELDS, SourceConfigError } from './source';

/** The bulletin out of an HTML page: each field the trimmed text content of the first element its CSS selector matches. */
export function mapHtmlBulletin(html: string, where: Where): DailyData {
  const doc = parseDocument(html);
  const found = {} as Found;
  for (const f of BULLETIN_FIELDS) {
    let el: Element | null;
    try {
      el = doc.querySelector(where[f]);
    } catch {
      throw new SourceConfigError(`CITYGAME_FIELDS: ${f} is not a CSS selector the parser accepts: ${where[f]}`);
    }
    const text = el?.textContent?.trim();
    found[f] = text ? text : null;
  }
  return bulletin(found, where, 'CSS selector');
}
