import { CelScalar, celMethod, listType } from "@bufbuild/cel";

/**
 * Corrections to the extended strings library where it departs from cel-go's: `split(sep, n)`
 * follows Go's `strings.SplitN`, so the last of the n substrings keeps the unsplit remainder.
 */

function splitN(text: string, separator: string, n: number): string[] {
  if (n === 0) return [];
  const all = separator === "" ? [...text] : text.split(separator);
  if (n < 0 || all.length <= n) return all;
  const head = all.slice(0, n - 1);
  return [...head, all.slice(n - 1).join(separator)];
}

export const stringsLibrary = [
  celMethod("split", CelScalar.STRING, [CelScalar.STRING, CelScalar.INT], listType(CelScalar.STRING), function (separator, n) {
    return splitN(this, separator, Number(n));
  }),
];
