import { parse, plan, type CelEnv, type CelResult } from "@bufbuild/cel";
import type { Expr, ParsedExpr } from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { CostEstimator } from "./cost.js";
import { createCelEnv, isKnownFunction } from "./environment.js";
import { findPatternError, invalidMatchesLiterals } from "./regex-literals.js";

/**
 * Compiling one CEL expression: parse, check that every identifier and function it names exists
 * (cel-go's checker, less its type inference over the schema), estimate its worst-case cost, and
 * plan it, compiling its constant regular expressions on the way (`regex-literals.ts`). Failures
 * are worded as cel-go's `Issues` are:
 * `ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')` followed by the source line
 * and a caret under the position.
 */

export type Bindings = Record<string, unknown>;

export interface CompiledExpression {
  source: string;
  evaluate: (bindings: Bindings) => CelResult;
  /** The variables the expression reads, e.g. `oldSelf` makes a CRD rule a transition rule. */
  references: ReadonlySet<string>;
  /** cel-go's estimated maximum cost with sizes bounded by the schema. */
  maxCost: number;
  /** The cost bound for variables typed by these (value-bounded) schemas: what one evaluation may cost. */
  costFor(variables: ReadonlyMap<string, JSONSchemaProps | undefined>): number;
}

export type CompileResult = { ok: true; expression: CompiledExpression } | { ok: false; error: string };

let sharedEnv: CelEnv | undefined;
function env(): CelEnv {
  sharedEnv ??= createCelEnv();
  return sharedEnv;
}

/**
 * Compiles `source` with the given variables in scope; each variable maps to the schema of its
 * value (or `undefined` when untyped) for cost estimation.
 */
export function compileExpression(source: string, variables: ReadonlyMap<string, JSONSchemaProps | undefined>): CompileResult {
  let parsed: ParsedExpr & { expr: Expr };
  try {
    parsed = parse(source);
  } catch (err) {
    return { ok: false, error: `compilation failed: ${syntaxIssue(source, err instanceof Error ? err.message : String(err))}` };
  }
  const references = new Set<string>();
  const issues: string[] = [];
  checkReferences(parsed.expr, new Set(variables.keys()), new Set(), references, (id, message) => {
    issues.push(issueText(source, positionOf(parsed, id), message));
  });
  if (issues.length > 0) return { ok: false, error: `compilation failed: ${issues.join("\n")}` };
  for (const { id, message } of invalidMatchesLiterals(parsed.expr)) issues.push(issueText(source, positionOf(parsed, id), message));
  if (issues.length > 0) return { ok: false, error: `compilation failed: ${issues.join("\n")}` };
  const patternError = findPatternError(parsed.expr);
  if (patternError !== undefined) return { ok: false, error: `program instantiation failed: ${patternError}` };
  const maxCost = new CostEstimator(variables).estimate(parsed.expr);
  const program = plan(env(), parsed);
  return {
    ok: true,
    expression: {
      source,
      references,
      maxCost,
      costFor: (bounded) => new CostEstimator(bounded).estimate(parsed.expr),
      evaluate: (bindings) => program(bindings as never),
    },
  };
}

function positionOf(parsed: ParsedExpr, id: bigint): number {
  return parsed.sourceInfo?.positions[id.toString()] ?? 0;
}

/** `ERROR: <input>:1:5: message` plus the line and a caret, as cel-go prints an issue. */
function issueText(source: string, offset: number, message: string): string {
  const before = source.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  const text = source.split("\n")[line - 1] ?? "";
  return `ERROR: <input>:${line}:${column}: ${message}\n | ${text}\n | ${".".repeat(column - 1)}^`;
}

function syntaxIssue(source: string, message: string): string {
  const match = /^<input>:(\d+):(\d+): (.*)$/s.exec(message);
  if (match === null) return `ERROR: <input>:1:1: Syntax error: ${message}`;
  const [, line, column, detail] = match;
  const text = source.split("\n")[Number(line) - 1] ?? "";
  return `ERROR: <input>:${line}:${column}: Syntax error: ${detail}\n | ${text}\n | ${".".repeat(Number(column) - 1)}^`;
}

/** Type identifiers every CEL environment declares (`type(x) == int`). */
const TYPE_NAMES = new Set(["int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type", "dyn"]);

/** The dotted name an expression spells (`strings` in `strings.quote(…)`), if it is one. */
function qualifiedName(expr: Expr): string | undefined {
  const kind = expr.exprKind;
  if (kind.case === "identExpr") return kind.value.name;
  if (kind.case === "selectExpr" && kind.value.operand !== undefined && !kind.value.testOnly) {
    const operand = qualifiedName(kind.value.operand);
    return operand === undefined ? undefined : `${operand}.${kind.value.field}`;
  }
  return undefined;
}

function checkReferences(
  expr: Expr,
  declared: ReadonlySet<string>,
  locals: ReadonlySet<string>,
  references: Set<string>,
  report: (id: bigint, message: string) => void,
): void {
  const visit = (e: Expr | undefined, scope: ReadonlySet<string> = locals) => {
    if (e !== undefined) checkReferences(e, declared, scope, references, report);
  };
  const kind = expr.exprKind;
  switch (kind.case) {
    case "identExpr": {
      const name = kind.value.name;
      if (locals.has(name) || TYPE_NAMES.has(name)) return;
      if (declared.has(name)) references.add(name);
      else report(expr.id, `undeclared reference to '${name}' (in container '')`);
      return;
    }
    case "selectExpr":
      visit(kind.value.operand);
      return;
    case "callExpr": {
      const { function: fn, target, args } = kind.value;
      const qualifier = target !== undefined ? qualifiedName(target) : undefined;
      const isQualifiedFunction =
        qualifier !== undefined &&
        !locals.has(qualifier.split(".")[0] ?? "") &&
        !declared.has(qualifier.split(".")[0] ?? "") &&
        isKnownFunction(env(), `${qualifier}.${fn}`);
      if (isQualifiedFunction) {
        // `strings.quote(x)`: the target is a namespace, not a value.
      } else if (!isKnownFunction(env(), fn)) {
        report(expr.id, `undeclared reference to '${fn}' (in container '')`);
      } else {
        visit(target);
      }
      for (const arg of args) visit(arg);
      return;
    }
    case "listExpr":
      for (const element of kind.value.elements) visit(element);
      return;
    case "structExpr":
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === "mapKey") visit(entry.keyKind.value);
        visit(entry.value);
      }
      return;
    case "comprehensionExpr": {
      const c = kind.value;
      visit(c.iterRange);
      visit(c.accuInit);
      const inner = new Set(locals);
      inner.add(c.iterVar);
      if (c.iterVar2 !== "") inner.add(c.iterVar2);
      inner.add(c.accuVar);
      visit(c.loopCondition, inner);
      visit(c.loopStep, inner);
      visit(c.result, inner);
      return;
    }
    default:
      return;
  }
}
