import { existsSync } from 'node:fs';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';
import { DOC_PATHS, linksOf, readDoc } from '../support/docs.js';

/** The anchors GitHub gives a page's headings. */
function anchorsOf(path: string): Set<string> {
  const slugger = new GithubSlugger();
  const text = readDoc(path).replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slugger.slug(m[1]!)));
}

describe('the README and docs/', () => {
  it('the README onboards in at most ~400 lines and links every page of docs/', () => {
    expect(readDoc('README.md').split('\n').length).toBeLessThanOrEqual(400);
    const linked = new Set(linksOf('README.md').map((l) => l.file));
    for (const page of DOC_PATHS.filter((p) => p !== 'README.md')) expect(linked, page).toContain(page);
  });

  it.each(DOC_PATHS)('%s: every relative link and image resolves, anchors included', (path) => {
    const broken = linksOf(path).filter(
      (link) => !existsSync(link.file) || (link.anchor !== null && !anchorsOf(link.file).has(link.anchor)),
    );
    expect(broken.map((l) => l.target)).toEqual([]);
  });

  it('the anchor check can fail: a made-up heading is not an anchor', () => {
    expect(anchorsOf('docs/operations.md').has('audit')).toBe(true);
    expect(anchorsOf('docs/operations.md').has('no-such-heading')).toBe(false);
  });
});
