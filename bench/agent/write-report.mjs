import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Replaces what stands between `<!-- agent-bench:begin -->` and `<!-- agent-bench:end -->`, and
 * formats the file as the repository's prettier does, so that `npm run check` passes after a
 * `--write` run.
 */
export async function writeBetweenMarkers(path, content) {
  const text = readFileSync(path, 'utf8');
  const begin = '<!-- agent-bench:begin -->';
  const end = '<!-- agent-bench:end -->';
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from === -1 || to < from) throw new Error(`${path} has no ${begin} … ${end}`);
  const written = `${text.slice(0, from + begin.length)}\n\n${content}\n\n${text.slice(to)}`;
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(path)) ?? {};
  writeFileSync(path, await prettier.format(written, { ...options, filepath: path }));
}
