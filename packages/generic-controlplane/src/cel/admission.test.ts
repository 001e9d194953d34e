import { describe, expect, it } from "vitest";
import { admissionMatchConditionEvaluator } from "./admission.js";

describe("admission CEL environment", () => {
  const evaluator = admissionMatchConditionEvaluator();
  const variables = {
    object: { metadata: { name: "web", labels: { app: "web" } }, data: { replicas: "3" } },
    oldObject: null,
    request: { operation: "CREATE", userInfo: { username: "alice", groups: ["dev"] } },
  };

  it("sees object, oldObject and request", () => {
    expect(evaluator.evaluate("object.metadata.labels.app == 'web' && oldObject == null", variables)).toBe(true);
    expect(evaluator.evaluate("request.operation == 'UPDATE'", variables)).toBe(false);
    expect(evaluator.evaluate("'dev' in request.userInfo.groups && int(object.data.replicas) > 2", variables)).toBe(true);
  });

  it("reports compile errors and evaluation errors in cel-go's words", () => {
    expect(evaluator.compile("object.metadata.name ==")).toEqual([
      expect.stringMatching(/^compilation failed: ERROR: <input>:1:\d+: Syntax error: /),
    ]);
    expect(evaluator.compile("self.x")[0]).toContain("undeclared reference to 'self' (in container '')");
    expect(evaluator.compile("object.metadata.name == 'x'")).toEqual([]);
    expect(() => evaluator.evaluate("object.spec.replicas > 1", variables)).toThrow("no such key: spec");
    expect(() => evaluator.evaluate("object.metadata.name", variables)).toThrow("cel expression must evaluate to a bool");
  });
});
