import type { CapabilityName, CcmDriver, DriverHookName } from "../driver/types.js";
import type { TestContext } from "./context.js";

/** One ported test. */
export interface SuiteTest {
  /** The full name, verbatim from upstream with its `[...]` tags, so existing focus/skip regexes keep working. */
  name: string;
  /** The upstream file the test ports, e.g. `test/e2e/network/loadbalancer.go`. */
  upstream: string;
  /** What the driver must declare or provide; anything missing skips the test with the reason. */
  requires: { capabilities?: CapabilityName[]; hooks?: DriverHookName[] };
  run(context: TestContext): Promise<void>;
}

/** The labels of a test: its bracketed tags (`[Feature:LoadBalancer]` → `Feature:LoadBalancer`). */
export function labelsOf(name: string): string[] {
  return [...name.matchAll(/\[([^\]]+)\]/g)].map((match) => match[1]!);
}

/** Why the driver cannot run the test, or undefined when it can. */
export function missingRequirements(test: SuiteTest, driver: CcmDriver): string | undefined {
  const missing: string[] = [];
  for (const capability of test.requires.capabilities ?? []) {
    if (driver.capabilities[capability] !== true) missing.push(`capability "${capability}"`);
  }
  for (const hook of test.requires.hooks ?? []) {
    if (driver[hook] === undefined) missing.push(`hook "${hook}"`);
  }
  if (missing.length === 0) return undefined;
  return `driver "${driver.name}" does not provide ${missing.join(", ")}`;
}

/** The tests a run selects, in registry order. */
export interface Selection {
  /** A pattern the name must match: a compiled `@kubekit/apimachinery/regex` pattern (Go's syntax) or a `RegExp`. */
  focus?: { test(name: string): boolean };
  skip?: { test(name: string): boolean };
  labelFilter?: (labels: readonly string[]) => boolean;
}

export function selectTests(tests: readonly SuiteTest[], selection: Selection): SuiteTest[] {
  return tests.filter(
    (test) =>
      (selection.focus === undefined || selection.focus.test(test.name)) &&
      (selection.skip === undefined || !selection.skip.test(test.name)) &&
      (selection.labelFilter === undefined || selection.labelFilter(labelsOf(test.name))),
  );
}
