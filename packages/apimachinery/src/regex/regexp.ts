import { RE2JS } from "re2js";

/**
 * The one regular-expression engine for patterns a client supplies (CRD `pattern`, CEL `matches`,
 * `find`, `findAll`, wherever an admission policy or webhook condition runs CEL). Kubernetes
 * compiles these with Go's `regexp`, which is RE2: no backreferences or lookaround, and matching
 * in time linear in the input. JavaScript's `RegExp` backtracks, so one pattern such as `(a+)+$`
 * and a few dozen characters would stall the whole event loop; re2js keeps Go's guarantee and
 * Go's syntax, and words its compile errors as Go does (`error parsing regexp: …`).
 */

/** A compiled pattern with Go's `regexp.Regexp` semantics for the calls Kubernetes makes. */
export interface Regexp {
  /** `MatchString`: whether the pattern matches anywhere in `text`. */
  test(text: string): boolean;
  /** `FindString`: the leftmost match, or the empty string when there is none. */
  find(text: string): string;
  /** `FindAllString`: successive non-overlapping matches, at most `limit` of them unless `limit` is negative. */
  findAll(text: string, limit: number): string[];
}

/** A pattern Go's `regexp.Compile` refuses; the message is Go's, e.g. ``error parsing regexp: invalid escape sequence: `\1` ``. */
export class RegexpSyntaxError extends Error {
  override name = "RegexpSyntaxError";
}

/**
 * Compiled patterns (and refusals) by source. Bounded because the sources come from clients: the
 * least recently used entry goes first.
 */
const MAX_CACHED = 4096;
const cache = new Map<string, Regexp | RegexpSyntaxError>();

function build(pattern: string): Regexp | RegexpSyntaxError {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    return new RegexpSyntaxError(error instanceof Error ? error.message : String(error));
  }
  const re2 = compiled.re2();
  return {
    test: (text) => compiled.matcher(text).find(),
    find: (text) => re2.find(text) as string,
    findAll: (text, limit) => (re2.findAll(text, limit) as string[] | null) ?? [],
  };
}

function lookup(pattern: string): Regexp | RegexpSyntaxError {
  let entry = cache.get(pattern);
  if (entry === undefined) {
    entry = build(pattern);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  } else {
    cache.delete(pattern);
  }
  cache.set(pattern, entry);
  return entry;
}

/** Go's `regexp.Compile`; throws {@link RegexpSyntaxError} with Go's message for a pattern RE2 refuses. */
export function compileRegexp(pattern: string): Regexp {
  const entry = lookup(pattern);
  if (entry instanceof RegexpSyntaxError) throw entry;
  return entry;
}

/** Go's compile error for `pattern` (`error parsing regexp: …`), or `undefined` when it compiles. */
export function regexpError(pattern: string): string | undefined {
  const entry = lookup(pattern);
  return entry instanceof RegexpSyntaxError ? entry.message : undefined;
}
