import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// A port is the contract an adapter implements and a use case relies on: every method of every
// interface under src/ports says what it does, in a doc comment.

const PORTS = join(process.cwd(), 'src', 'ports');

function portFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? portFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** `Interface.method` of every method signature (or function-typed member) without a doc comment. */
function undocumentedMethods(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const missing: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isInterfaceDeclaration(node))
      for (const member of node.members) {
        const isMethod =
          ts.isMethodSignature(member) ||
          (ts.isPropertySignature(member) && member.type !== undefined && ts.isFunctionTypeNode(member.type));
        const documented = ts.getJSDocCommentsAndTags(member).length > 0;
        if (isMethod && !documented) missing.push(`${node.name.text}.${member.name?.getText(source)}`);
      }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return missing;
}

describe('ports', () => {
  const files = portFiles(PORTS).map((file) => relative(process.cwd(), file).split(sep).join('/'));

  it.each(files)('%s documents every method', (file) => {
    expect(undocumentedMethods(file, readFileSync(file, 'utf8'))).toEqual([]);
  });

  it('the check can fail: an interface with an undocumented method is caught, a documented one is not', () => {
    const source = `export interface Store {
      /** Reads one. */
      get(id: string): Promise<string | null>;
      put(id: string): Promise<void>;
      readonly onChange: (id: string) => void;
    }`;
    expect(undocumentedMethods('x.ts', source)).toEqual(['Store.put', 'Store.onChange']);
  });
});
