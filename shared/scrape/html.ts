import { parseHTML } from 'linkedom';

/**
 * HTML helpers over linkedom. Only functions that really parse HTML import this module,
 * so linkedom stays out of the bundles of JSON-only operations.
 */
export function parseDocument(html: string): Document {
  return parseHTML(html).document as unknown as Document;
}

/** Every JSON-LD block of the page, parsed; blocks that do not parse are skipped. */
export function jsonLd(doc: Document): unknown[] {
  const out: unknown[] = [];
  for (const el of Array.from(doc.querySelectorAll('script[type="application/ld+json"]'))) {
    try {
      const v = JSON.parse(el.textContent ?? '');
      if (Array.isArray(v)) out.push(...v);
      else out.push(v);
    } catch {
      /* a broken block is not fatal: others may hold the data */
    }
  }
  return out;
}

/** JSON embedded in a script tag selected by CSS (e.g. `script#__NEXT_DATA__`), or null. */
export function scriptJson(doc: Document, selector: string): unknown {
  const el = doc.querySelector(selector);
  if (!el) return null;
  try {
    return JSON.parse(el.textContent ?? '');
  } catch {
    return null;
  }
}

/** The `content` of a <meta property|name=...> tag, or null. */
export function metaContent(doc: Document, key: string): string | null {
  const el = doc.querySelector(`meta[property="${key}"], meta[name="${key}"]`);
  const v = el?.getAttribute('content');
  return v && v.length > 0 ? v : null;
}

/**
 * Plain text of an HTML fragment with line breaks kept: <br> and paragraph ends become "\n",
 * entities are decoded, and everything else is flattened to its text.
 */
export function htmlToText(html: string): string {
  return elementText(parseDocument(`<!doctype html><html><body>${html}</body></html>`).body);
}

const BLOCK = new Set(['p', 'div', 'li', 'blockquote', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/**
 * As htmlToText, for an element already parsed, in one walk of the tree (no CSS selectors: they are
 * the slow part of linkedom). `visit` sees every element first and may return 'skip' to leave it
 * and its content out of the text.
 */
export function elementText(root: Element, visit?: (el: Element) => 'skip' | void): string {
  let out = '';
  const walk = (node: Node) => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) {
        out += (child as Text).data;
        continue;
      }
      if (child.nodeType !== 1) continue;
      const el = child as Element;
      if (visit?.(el) === 'skip') continue;
      const tag = el.localName;
      if (tag === 'br') out += '\n';
      else {
        walk(el);
        if (BLOCK.has(tag)) out += '\n\n';
      }
    }
  };
  walk(root);
  return out.replace(/\u00a0/g, ' ').replace(/\n{3,}/g, '\n\n').trim();
}
