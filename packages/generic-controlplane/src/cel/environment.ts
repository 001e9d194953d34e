import { celEnv, type CelEnv, type CelFunc } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import { compileRegexp } from "../regex/index.js";
import { kubernetesLibraries } from "./library/index.js";

/**
 * The CEL environment Kubernetes expressions run in: the CEL standard library, the extended
 * strings library and Kubernetes' own libraries (lists, regex, quantity, ip, cidr, format, url,
 * optionals), as apiserver's `environment.MustBaseEnvSet` assembles them.
 */
export const celFunctions: readonly CelFunc[] = [...strings, ...kubernetesLibraries];

const functionNames = new Set(celFunctions.map((f) => f.name));

/** `matches` runs on the same RE2 engine and pattern cache as every other client-supplied pattern. */
export function createCelEnv(): CelEnv {
  return celEnv({ funcs: [...celFunctions], re2: { compile: compileRegexp } });
}

/** Whether a function or method of this (possibly qualified) name exists in the environment. */
export function isKnownFunction(env: CelEnv, name: string): boolean {
  return functionNames.has(name) || env.funcs.find(name) !== undefined || BUILT_IN_OPERATORS.has(name);
}

/** Operators and macros the parser emits that the planner implements itself. */
const BUILT_IN_OPERATORS = new Set(["_&&_", "_||_", "_?_:_", "_[_]", "@not_strictly_false", "@in", "!_", "-_", "has"]);
