import { describe, expect, it } from "vitest";
import type { ObjectMeta } from "../api/types.js";
import { formatFieldError } from "./field-errors.js";
import { validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.js";

const fmt = (meta: ObjectMeta, namespaced = true, nameRule?: "DNS1123Label" | "DNS1123Subdomain" | "PathSegment") =>
  validateObjectMeta(meta, nameRule === undefined ? { namespaced } : { namespaced, nameRule }).map(formatFieldError);

describe("validateObjectMeta", () => {
  it("accepts a well-formed namespaced object", () => {
    expect(
      fmt({
        name: "demo.example",
        namespace: "default",
        labels: { app: "web", "example.com/tier": "" },
        annotations: { "Example.com/Note": "x" },
        finalizers: ["example.com/cleanup", "orphan"],
        ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "u1", controller: true }],
      }),
    ).toEqual([]);
  });

  it.each<[string, ObjectMeta, boolean, string[]]>([
    ["missing name", { namespace: "default" }, true, ["metadata.name: Required value: name or generateName is required"]],
    ["missing namespace", { name: "a" }, true, ["metadata.namespace: Required value"]],
    [
      "namespace on a cluster-scoped type",
      { name: "a", namespace: "x" },
      false,
      ["metadata.namespace: Forbidden: not allowed on this type"],
    ],
    [
      "upper-case name",
      { name: "Demo", namespace: "default" },
      true,
      [
        `metadata.name: Invalid value: "Demo": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ],
    ],
    ["invalid namespace", { name: "a", namespace: "a.b" }, true, [`metadata.namespace: Invalid value: "a.b": must not contain dots`]],
    [
      "negative generation",
      { name: "a", namespace: "n", generation: -1 },
      true,
      ["metadata.generation: Invalid value: -1: must be greater than or equal to 0"],
    ],
    [
      "bad label value",
      { name: "a", namespace: "n", labels: { app: "-x" } },
      true,
      [
        `metadata.labels: Invalid value: "-x": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      ],
    ],
    [
      "empty label key",
      { name: "a", namespace: "n", labels: { "": "x" } },
      true,
      [
        `metadata.labels: Invalid value: "": name part must be non-empty`,
        expect.stringContaining(`metadata.labels: Invalid value: "": name part must consist of`),
      ],
    ],
    [
      "oversized annotations",
      { name: "a", namespace: "n", annotations: { big: "x".repeat(256 * 1024) } },
      true,
      ["metadata.annotations: Too long: may not be more than 262144 bytes"],
    ],
    [
      "orphan and foreground finalizers together",
      { name: "a", namespace: "n", finalizers: ["orphan", "foregroundDeletion"] },
      true,
      [`metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set`],
    ],
    [
      "invalid finalizer",
      { name: "a", namespace: "n", finalizers: ["a/b/c"] },
      true,
      [expect.stringMatching(/^metadata\.finalizers: Invalid value: "a\/b\/c": a qualified name/)],
    ],
    [
      "incomplete owner reference",
      { name: "a", namespace: "n", ownerReferences: [{ apiVersion: "", kind: "", name: "", uid: "" }] },
      true,
      [
        `metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty`,
        `metadata.ownerReferences.kind: Invalid value: "": kind must not be empty`,
        `metadata.ownerReferences.name: Invalid value: "": name must not be empty`,
        `metadata.ownerReferences.uid: Invalid value: "": uid must not be empty`,
      ],
    ],
    [
      "two controllers",
      {
        name: "a",
        namespace: "n",
        ownerReferences: [
          { apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "1", controller: true },
          { apiVersion: "v1", kind: "Secret", name: "y", uid: "2", controller: true },
        ],
      },
      true,
      [
        expect.stringContaining(
          `Only one reference can have Controller set to true. Found "true" in references for ConfigMap/x and Secret/y`,
        ),
      ],
    ],
    [
      "event owner",
      { name: "a", namespace: "n", ownerReferences: [{ apiVersion: "v1", kind: "Event", name: "e", uid: "1" }] },
      true,
      [expect.stringContaining("/v1, Kind=Event is disallowed from being an owner")],
    ],
  ])("reports %s", (_case, meta, namespaced, expected) => {
    expect(fmt(meta, namespaced)).toEqual(expected);
  });

  it("checks generateName with the prefix rule and still requires a name", () => {
    expect(fmt({ generateName: "demo-", namespace: "n" })).toEqual(["metadata.name: Required value: name or generateName is required"]);
    expect(fmt({ generateName: "Demo-", name: "demo-abcde", namespace: "n" })[0]).toMatch(
      /^metadata\.generateName: Invalid value: "Demo-": a lowercase RFC 1123 subdomain/,
    );
  });

  it("applies the name rule of the type", () => {
    expect(fmt({ name: "a.b" }, false, "DNS1123Label")).toEqual([`metadata.name: Invalid value: "a.b": must not contain dots`]);
    expect(fmt({ name: "Any Name:1" }, false, "PathSegment")).toEqual([]);
    expect(fmt({ name: ".." }, false, "PathSegment")).toEqual([`metadata.name: Invalid value: "..": may not be '..'`]);
  });
});

describe("validateObjectMetaUpdate", () => {
  const old: ObjectMeta = {
    name: "a",
    namespace: "n",
    uid: "u1",
    resourceVersion: "5",
    creationTimestamp: "2026-01-01T00:00:00Z",
    generation: 2,
  };

  it("accepts an update that keeps identity fields", () => {
    expect(validateObjectMetaUpdate({ ...old, labels: { x: "y" } }, old)).toEqual([]);
  });

  it.each<[string, ObjectMeta, string[]]>([
    ["a changed uid", { ...old, uid: "u2" }, [`metadata.uid: Invalid value: "u2": field is immutable`]],
    ["a changed name", { ...old, name: "b" }, [`metadata.name: Invalid value: "b": field is immutable`]],
    ["a changed namespace", { ...old, namespace: "m" }, [`metadata.namespace: Invalid value: "m": field is immutable`]],
    [
      "a changed creationTimestamp",
      { ...old, creationTimestamp: "2026-01-02T00:00:00Z" },
      [`metadata.creationTimestamp: Invalid value: "2026-01-02T00:00:00Z": field is immutable`],
    ],
    [
      "a missing resourceVersion",
      { ...old, resourceVersion: "" },
      [`metadata.resourceVersion: Invalid value: "": must be specified for an update`],
    ],
    ["a decremented generation", { ...old, generation: 1 }, ["metadata.generation: Invalid value: 1: must not be decremented"]],
    [
      "a set deletionTimestamp",
      { ...old, deletionTimestamp: "2026-01-03T00:00:00Z" },
      [`metadata.deletionTimestamp: Invalid value: "2026-01-03T00:00:00Z": field is immutable`],
    ],
  ])("rejects %s", (_case, meta, expected) => {
    expect(validateObjectMetaUpdate(meta, old).map(formatFieldError)).toEqual(expected);
  });

  it("forbids adding finalizers once deletion started, but allows removing them", () => {
    const deleting: ObjectMeta = {
      ...old,
      deletionTimestamp: "2026-01-03T00:00:00Z",
      deletionGracePeriodSeconds: 0,
      finalizers: ["a.io/x"],
    };
    expect(validateObjectMetaUpdate({ ...deleting, finalizers: [] }, deleting)).toEqual([]);
    expect(validateObjectMetaUpdate({ ...deleting, finalizers: ["a.io/x", "b.io/y", "a.io/z"] }, deleting).map(formatFieldError)).toEqual([
      `metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"a.io/z", "b.io/y"}`,
    ]);
  });
});
