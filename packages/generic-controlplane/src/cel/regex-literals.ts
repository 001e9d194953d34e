import type { Expr } from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";
import { regexpError } from "../regex/index.js";

/**
 * Constant patterns are compiled when the expression is, as Kubernetes does, so a pattern RE2
 * refuses is a compile error of the rule or policy rather than a failure of every request:
 *
 * - `matches('…')`: cel-go's `ValidateRegexLiterals` (part of Kubernetes' base environment since
 *   1.29) reports `invalid matches argument` at the literal, among the compile issues.
 * - `find('…')` / `findAll('…')`: apiserver's `FindRegexOptimization`/`FindAllRegexOptimization`
 *   compile the pattern while the program is built, failing it with Go's compile error.
 */

/** The string literal at `expr`, if it is one. */
function stringLiteral(expr: Expr | undefined): string | undefined {
  const kind = expr?.exprKind;
  if (kind?.case !== "constExpr") return undefined;
  return kind.value.constantKind.case === "stringValue" ? kind.value.constantKind.value : undefined;
}

/** Each call of `expr`, arguments and target before the call itself (the order a program is built in). */
function forEachCall(expr: Expr, visit: (call: { fn: string; target: Expr | undefined; args: Expr[] }) => void): void {
  const walk = (e: Expr | undefined) => {
    if (e !== undefined) forEachCall(e, visit);
  };
  const kind = expr.exprKind;
  switch (kind.case) {
    case "selectExpr":
      walk(kind.value.operand);
      return;
    case "callExpr":
      walk(kind.value.target);
      kind.value.args.forEach(walk);
      visit({ fn: kind.value.function, target: kind.value.target, args: kind.value.args });
      return;
    case "listExpr":
      kind.value.elements.forEach(walk);
      return;
    case "structExpr":
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === "mapKey") walk(entry.keyKind.value);
        walk(entry.value);
      }
      return;
    case "comprehensionExpr":
      for (const part of [kind.value.iterRange, kind.value.accuInit, kind.value.loopCondition, kind.value.loopStep, kind.value.result])
        walk(part);
      return;
    default:
      return;
  }
}

/** The `matches` literals RE2 refuses: the literal's id and cel-go's issue text for each. */
export function invalidMatchesLiterals(expr: Expr): Array<{ id: bigint; message: string }> {
  const issues: Array<{ id: bigint; message: string }> = [];
  forEachCall(expr, ({ fn, args }) => {
    const literal = args[0];
    const pattern = stringLiteral(literal);
    if (fn === "matches" && literal !== undefined && pattern !== undefined && regexpError(pattern) !== undefined) {
      issues.push({ id: literal.id, message: "invalid matches argument" });
    }
  });
  return issues;
}

/** Go's compile error for the first constant `find`/`findAll` pattern RE2 refuses, if any. */
export function findPatternError(expr: Expr): string | undefined {
  let error: string | undefined;
  forEachCall(expr, ({ fn, target, args }) => {
    if (error !== undefined || (fn !== "find" && fn !== "findAll") || target === undefined) return;
    const pattern = stringLiteral(args[0]);
    if (pattern !== undefined) error = regexpError(pattern);
  });
  return error;
}
