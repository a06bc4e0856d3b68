import { readFileSync, writeFileSync } from 'node:fs';

/** Replaces what stands between `<!-- agent-bench:begin -->` and `<!-- agent-bench:end -->`. */
export function writeBetweenMarkers(path, content) {
  const text = readFileSync(path, 'utf8');
  const begin = '<!-- agent-bench:begin -->';
  const end = '<!-- agent-bench:end -->';
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from === -1 || to < from) throw new Error(`${path} has no ${begin} … ${end}`);
  writeFileSync(path, `${text.slice(0, from + begin.length)}\n\n${content}\n\n${text.slice(to)}`);
}
