import type { Page } from 'playwright-core';

/** What is wrong with a page's layout at its current width, in words a failing test can show. */
export interface LayoutFault {
  readonly kind:
    'page scrolls sideways' | 'box scrolls sideways' | 'word broken' | 'box narrower than its word';
  readonly where: string;
}

/**
 * Checks the page as a person on that screen sees it: the page never scrolls sideways, no box
 * overflows its own width, and no word of the visible text is split across two lines (a word
 * longer than the page may wrap; its box must then be as wide as the page allows).
 */
export function layoutFaults(page: Page): Promise<LayoutFault[]> {
  return page.evaluate(() => {
    const faults: { kind: string; where: string }[] = [];
    const describe = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ')[0]}` : ''} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width + 1)
      faults.push({
        kind: 'page scrolls sideways',
        where: `${document.documentElement.scrollWidth} > ${width}`,
      });
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      const style = getComputedStyle(el);
      if (style.display === 'none' || style.visibility === 'hidden') continue;
      // A select shows its chosen option cut to its box; its options are a list of their own.
      if (el.tagName === 'SELECT' || el.closest('select')) continue;
      // A closed disclosure's content is not drawn.
      if (el.closest('details:not([open])') && !el.closest('summary') && el.tagName !== 'DETAILS') continue;
      // Boxes that scroll on purpose (a table on a wide screen, code) say so with overflow-x.
      if (el.scrollWidth > el.clientWidth + 1 && style.overflowX === 'visible' && el.clientWidth > 0)
        faults.push({
          kind: 'box scrolls sideways',
          where: `${describe(el)} ${el.scrollWidth} > ${el.clientWidth}`,
        });
    }
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    const ruler = document.createElement('canvas').getContext('2d')!;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      const parent = node.parentElement;
      if (
        !parent ||
        !text.trim() ||
        parent.closest('script, style, details:not([open]), [hidden], code, .secret')
      )
        continue;
      // Words: a break after a hyphen, dash or slash is a line break a reader expects.
      for (const match of text.matchAll(/[^\s\-‐–—/]+/g)) {
        range.setStart(node, match.index!);
        range.setEnd(node, match.index! + match[0].length);
        const lines = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
        if (lines.size <= 1) continue;
        // Broken although it fits its box: a wrapping rule that breaks words for nothing. Wider
        // than its box: only acceptable when the box already takes (nearly) the whole page.
        ruler.font = getComputedStyle(parent).font;
        const wordWidth = ruler.measureText(match[0]).width;
        const box = parent.getBoundingClientRect().width;
        if (wordWidth <= box + 1)
          faults.push({
            kind: 'word broken',
            where: `"${match[0].slice(0, 30)}" in ${describe(parent)} (${Math.round(box)} px)`,
          });
        else if (box < width * 0.75)
          faults.push({
            kind: 'box narrower than its word',
            where: `"${match[0].slice(0, 30)}" in ${describe(parent)} (${Math.round(box)} < ${Math.round(wordWidth)} px)`,
          });
      }
    }
    return faults as LayoutFault[];
  });
}
