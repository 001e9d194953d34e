import { CelScalar, celError, celMethod, listType } from "@bufbuild/cel";

/**
 * Kubernetes' regex library (apiserver `library/regex.go`): `find` returns the first match or
 * the empty string, `findAll` every match, at most `limit` of them when a limit is given
 * (a negative limit means no limit). Patterns are RE2 as written in Kubernetes objects; the
 * JavaScript engine runs them in Unicode mode, which agrees on the RE2 syntax rules use.
 */

const cache = new Map<string, RegExp>();

function compile(pattern: string): RegExp {
  let regex = cache.get(pattern);
  if (regex === undefined) {
    try {
      regex = new RegExp(pattern, "gu");
    } catch (err) {
      throw celError(`error parsing regexp: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, regex);
  }
  regex.lastIndex = 0;
  return regex;
}

function findAll(text: string, pattern: string, limit: bigint): string[] {
  if (limit === 0n) return [];
  const matches: string[] = [];
  for (const match of text.matchAll(compile(pattern))) {
    matches.push(match[0]);
    if (limit > 0n && BigInt(matches.length) >= limit) break;
  }
  return matches;
}

export const regexLibrary = [
  celMethod("find", CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (pattern) {
    return compile(pattern).exec(this)?.[0] ?? "";
  }),
  celMethod("findAll", CelScalar.STRING, [CelScalar.STRING], listType(CelScalar.STRING), function (pattern) {
    return findAll(this, pattern, -1n);
  }),
  celMethod("findAll", CelScalar.STRING, [CelScalar.STRING, CelScalar.INT], listType(CelScalar.STRING), function (pattern, limit) {
    return findAll(this, pattern, limit);
  }),
];
