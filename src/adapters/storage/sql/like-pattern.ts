/** A LIKE pattern (with `ESCAPE '\'`) matching values that contain `text` literally: its own % and _ match only themselves. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
