import { describe, expect, it } from "vitest";
import { forbidden } from "../api/errors/index.js";
import { ControlPlaneError } from "../api/errors/control-plane-error.js";
import { widgets } from "../registry/test-fixtures.js";
import { runMutatingAdmission, runValidatingAdmission } from "./runner.js";
import type { AdmissionAttributes, AdmissionPlugin } from "./types.js";

function attributes(): AdmissionAttributes {
  return {
    operation: "CREATE",
    definition: widgets,
    namespace: "default",
    name: "a",
    subresource: "",
    object: { apiVersion: "v1", kind: "Widget", metadata: { name: "a", namespace: "default" } },
    oldObject: undefined,
    dryRun: false,
  };
}

function labeller(name: string, seen: string[]): AdmissionPlugin {
  return {
    name,
    admit(a) {
      seen.push(`admit ${name} ${JSON.stringify(a.object?.metadata?.labels ?? {})}`);
      a.object!.metadata!.labels = { ...a.object!.metadata!.labels, [name]: "yes" };
    },
    validate(a) {
      seen.push(`validate ${name} ${JSON.stringify(a.object?.metadata?.labels ?? {})}`);
    },
  };
}

describe("admission chain", () => {
  it("runs mutating plugins in order, each seeing what the previous one changed", async () => {
    const seen: string[] = [];
    const a = attributes();
    await runMutatingAdmission([labeller("first", seen), labeller("second", seen)], a);
    expect(seen).toEqual(["admit first {}", 'admit second {"first":"yes"}']);
    expect(a.object?.metadata?.labels).toEqual({ first: "yes", second: "yes" });
  });

  it("validates the mutated object with every plugin, and skips plugins without the phase", async () => {
    const seen: string[] = [];
    const a = attributes();
    const mutateOnly: AdmissionPlugin = { name: "mutate-only", admit: (x) => void (x.object!.metadata!.labels = { m: "1" }) };
    await runMutatingAdmission([mutateOnly], a);
    await runValidatingAdmission([mutateOnly, labeller("checker", seen)], a);
    expect(seen).toEqual(['validate checker {"m":"1"}']);
  });

  it("stops at the first plugin that refuses, with its Status", async () => {
    const seen: string[] = [];
    const refuse: AdmissionPlugin = {
      name: "refuse",
      validate: () => {
        throw forbidden({ group: "", resource: "widgets" }, "a", "not today");
      },
    };
    const error = await runValidatingAdmission([refuse, labeller("after", seen)], attributes()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ControlPlaneError);
    expect((error as ControlPlaneError).toStatus()).toMatchObject({
      code: 403,
      reason: "Forbidden",
      message: 'widgets "a" is forbidden: not today',
    });
    expect(seen).toEqual([]);
  });
});
