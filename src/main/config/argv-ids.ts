/**
 * Ids made by other libraries (oidc-provider's grant ids are nanoids) may begin with "-",
 * and `holdfast connections revoke -tK3…` must revoke, not fail on an "unknown option -t".
 * An argument counts as such an id when it is one dash then at least seven id characters,
 * is not `-n<digits>` (the short form of --lines) and is not the value of the option before
 * it. Short typos like `-x` and every `--long` option are still reported as unknown.
 */
const DASH_ID = /^-[A-Za-z0-9_][A-Za-z0-9_-]{6,}$/;

export interface SplitArgv {
  /** The arguments for the option parser, in order. */
  readonly parseable: string[];
  /** Each dash-led id with its index in the original argv. */
  readonly ids: { readonly at: number; readonly value: string }[];
  /** Maps an index in `parseable` back to its index in the original argv. */
  readonly originalIndex: number[];
}

export function splitDashIds(argv: readonly string[], takesValue: (option: string) => boolean): SplitArgv {
  const parseable: string[] = [];
  const ids: { at: number; value: string }[] = [];
  const originalIndex: number[] = [];
  let afterTerminator = false;
  argv.forEach((arg, at) => {
    const previous = at > 0 ? argv[at - 1]! : '';
    const isValueOfPrevious = /^--[^=]+$/.test(previous) && takesValue(previous.slice(2));
    if (arg === '--') afterTerminator = true;
    if (!afterTerminator && !isValueOfPrevious && DASH_ID.test(arg) && !/^-n\d+$/.test(arg)) {
      ids.push({ at, value: arg });
      return;
    }
    originalIndex.push(at);
    parseable.push(arg);
  });
  return { parseable, ids, originalIndex };
}

/** The positionals in their original order, the dash-led ids put back where they stood. */
export function mergePositionals(
  split: SplitArgv,
  parsed: readonly { readonly kind: string; readonly index: number; readonly value?: string | undefined }[],
): string[] {
  const placed = parsed
    .filter((token) => token.kind === 'positional')
    .map((token) => ({ at: split.originalIndex[token.index]!, value: token.value! }));
  return [...placed, ...split.ids].sort((a, b) => a.at - b.at).map((entry) => entry.value);
}
