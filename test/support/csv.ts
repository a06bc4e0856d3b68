/**
 * Rows of an RFC 4180 CSV text: quoted fields may hold commas, doubled quotes and line breaks;
 * lines end in CRLF or LF. Strict enough to fail on a stray quote in an unquoted field.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  const endField = () => {
    row.push(field);
    field = '';
  };
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (ch === '"') quoted = false;
      else field += ch;
      i++;
      continue;
    }
    if (ch === '"') {
      if (field !== '') throw new Error(`a quote inside an unquoted field at ${i}`);
      quoted = true;
    } else if (ch === ',') endField();
    else if (ch === '\n' || (ch === '\r' && text[i + 1] === '\n')) {
      endField();
      rows.push(row);
      row = [];
      if (ch === '\r') i++;
    } else field += ch;
    i++;
  }
  if (quoted) throw new Error('an unterminated quoted field');
  if (field !== '' || row.length > 0) {
    endField();
    rows.push(row);
  }
  return rows;
}
