import { describe, expect, it } from "vitest";
import { decodeContinueToken, encodeContinueToken } from "./continue-token.js";
import { resourceKeys } from "./keys.js";

describe("resourceKeys", () => {
  it.each([
    [
      { group: "", plural: "configmaps", scope: "Namespaced" as const },
      "default",
      "foo",
      "/registry/configmaps/default/foo",
      "/registry/configmaps/default",
    ],
    [
      { group: "", plural: "namespaces", scope: "Cluster" as const },
      undefined,
      "kube-system",
      "/registry/namespaces/kube-system",
      "/registry/namespaces",
    ],
    [
      { group: "coordination.k8s.io", plural: "leases", scope: "Namespaced" as const },
      "n",
      "l",
      "/registry/coordination.k8s.io/leases/n/l",
      "/registry/coordination.k8s.io/leases/n",
    ],
  ])("%j in %s: %s → %s", (definition, namespace, name, key, prefix) => {
    const keys = resourceKeys(definition);
    expect(keys.key(namespace, name)).toBe(key);
    expect(keys.prefix(namespace)).toBe(prefix);
    expect(keys.prefix(undefined)).toBe(keys.root);
  });
});

describe("continue tokens", () => {
  it("round-trip in kube-apiserver's shape", () => {
    const token = encodeContinueToken({ revision: 42, start: "default/foo" });
    expect(JSON.parse(Buffer.from(token, "base64url").toString())).toEqual({ v: "meta.k8s.io/v1", rv: 42, start: "default/foo" });
    expect(decodeContinueToken(token)).toEqual({ revision: 42, start: "default/foo" });
    expect(decodeContinueToken(encodeContinueToken({ revision: -1, start: "x" })).revision).toBe(-1);
  });

  it.each([
    ["garbage", "!!!"],
    ["wrong version", Buffer.from(JSON.stringify({ v: "x", rv: 1, start: "a" })).toString("base64url")],
    ["zero revision", Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv: 0, start: "a" })).toString("base64url")],
    ["escaping start key", Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv: 3, start: "../secrets/x" })).toString("base64url")],
  ])("rejects a %s token with 400", (_case, token) => {
    expect(() => decodeContinueToken(token)).toThrow(expect.objectContaining({ code: "BadRequest" }) as Error);
  });
});
