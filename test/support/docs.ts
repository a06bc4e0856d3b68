import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/** The README and every page under docs/, as paths from the repository root. */
export const DOC_PATHS: readonly string[] = [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

export const readDoc = (path: string): string => readFileSync(path, 'utf8');

/** What a page links to or shows: markdown links, images and <img>, with where they resolve from the root. */
export function linksOf(
  path: string,
): { readonly target: string; readonly file: string; readonly anchor: string | null }[] {
  const text = readDoc(path).replace(/```[\s\S]*?```/g, '');
  const targets = [
    ...[...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!),
    ...[...text.matchAll(/<img src="([^"]+)"/g)].map((m) => m[1]!),
  ].filter((target) => !/^[a-z]+:/i.test(target));
  return targets.map((target) => {
    const [file, anchor] = target.split('#') as [string, string | undefined];
    return {
      target,
      file: file === '' ? path : normalize(join(dirname(path), file)),
      anchor: anchor ?? null,
    };
  });
}

/** The `holdfast …` lines of a text's bash blocks, split into arguments (quotes honoured). */
export function holdfastCommands(text: string): string[][] {
  return [...text.matchAll(/```bash\n([\s\S]*?)```/g)]
    .flatMap((m) => m[1]!.split('\n'))
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line.startsWith('holdfast '))
    .map((line) => [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!).slice(1));
}
