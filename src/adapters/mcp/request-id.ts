const ID_VALUE = String.raw`(-?\d{1,16}|"(?:[^"\\]|\\.){0,200}")`;
// Only an id that is surely the message's own: among the first keys, or the very last one.
// The value must end there (a comma or the object's end): 1.5, 1e3 or a longer number is no id of ours.
const HEAD_ID = new RegExp(
  String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}(?=\s*[,}])`,
);
const TAIL_ID = new RegExp(String.raw`"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);

/**
 * The JSON-RPC id of a message too large to parse, from the bytes seen of it: its first (and,
 * where they were read, its last) characters. Null unless it is surely the message's own id — a
 * nested "id" in the arguments is never taken for it.
 */
export function jsonRpcIdOf(head: string, tail = ''): string | number | null {
  const id = HEAD_ID.exec(head)?.[1] ?? TAIL_ID.exec(tail)?.[1];
  if (id === undefined) return null;
  try {
    return JSON.parse(id) as string | number;
  } catch {
    return null;
  }
}
