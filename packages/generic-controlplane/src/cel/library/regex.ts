import { CelScalar, celError, celMethod, listType } from "@bufbuild/cel";
import { compileRegexp, RegexpSyntaxError, type Regexp } from "../../regex/index.js";

/**
 * Kubernetes' regex library (apiserver `library/regex.go`): `find` returns the first match or
 * the empty string, `findAll` every match, at most `limit` of them when a limit is given
 * (a negative limit means no limit). Patterns are Go regular expressions on the server's RE2
 * engine. A constant pattern that does not compile fails the expression's compilation
 * (`compile.ts`); one computed at run time fails the call as upstream words it.
 */

function compile(pattern: string): Regexp {
  try {
    return compileRegexp(pattern);
  } catch (err) {
    if (err instanceof RegexpSyntaxError) throw celError(`Illegal regex: ${err.message}`);
    throw err;
  }
}

/** Go's `int(n)` of a CEL int: any negative limit, or one past every possible match, is "all". */
function matchLimit(text: string, limit: bigint): number {
  return limit < 0n || limit > BigInt(text.length + 1) ? -1 : Number(limit);
}

export const regexLibrary = [
  celMethod("find", CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (pattern) {
    return compile(pattern).find(this);
  }),
  celMethod("findAll", CelScalar.STRING, [CelScalar.STRING], listType(CelScalar.STRING), function (pattern) {
    return compile(pattern).findAll(this, -1);
  }),
  celMethod("findAll", CelScalar.STRING, [CelScalar.STRING, CelScalar.INT], listType(CelScalar.STRING), function (pattern, limit) {
    return compile(pattern).findAll(this, matchLimit(this, limit));
  }),
];
