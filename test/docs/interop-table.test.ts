import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** A markdown table's body rows as cells (header and rule dropped). */
function rows(table: string): string[][] {
  return table
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2)
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

const TRANSPORTS = ['HTTP + token', 'stdio', 'HTTP + OAuth'];

describe("the README's interop table", () => {
  it('says what the last `npm run interop` wrote into docs/interop.md, client by client', () => {
    const doc = readFileSync('docs/interop.md', 'utf8');
    const matrix = /<!-- interop:begin -->([\s\S]*?)<!-- interop:end -->/.exec(doc)![1]!;
    // From the run: per client and transport, ✓ when every operation passed (— is "not offered").
    const ran = new Map<string, string>();
    for (const [client, transport, ...cells] of rows(matrix)) {
      const passed = cells.every((cell) => cell.startsWith('✓') || cell === '—');
      const noPrompts = cells[3] === '—';
      ran.set(`${client}|${transport}`, passed ? (noPrompts ? '✓ (no prompts)' : '✓') : '✗');
    }
    expect(ran.size).toBeGreaterThan(10);
    const readme = readFileSync('README.md', 'utf8');
    const table = /\| client +\| HTTP \+ token[^\n]*\n(?:\|[^\n]*\n)+/.exec(readme)![0];
    const said = new Map<string, string>();
    for (const [client, ...cells] of rows(table))
      cells.forEach((cell, i) => cell && said.set(`${client!.replaceAll('`', '')}|${TRANSPORTS[i]}`, cell));
    expect(Object.fromEntries(said)).toEqual(Object.fromEntries(ran));
  });
});
