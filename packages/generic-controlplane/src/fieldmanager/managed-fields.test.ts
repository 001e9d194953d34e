/**
 * Ports apimachinery `managedfields/internal/managedfields_test.go` (TestHasFieldsType,
 * TestHasAPIVersion, TestHasOperation, TestRoundTripManagedFields, TestBuildManagerIdentifier,
 * TestSortEncodedManagedFields) and the table of `capmanagers_test.go` TestCapUpdateManagers.
 * Left out: TestEncodeReusesRawFieldsOfUnchangedManagers and the encode benchmark (Go allocation
 * concerns), and the round-trip of a null list (there is no null/empty distinction in the map form).
 */
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { ManagedFieldsEntry } from "../api/types.js";
import { makePath } from "./fields-v1.js";
import {
  ANCIENT_CHANGES,
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  managerIdentifier,
  ManagedFieldsError,
} from "./managed-fields.js";

const entries = (text: string) => parse(text) as ManagedFieldsEntry[];

describe("decodeManagedFields", () => {
  const valid = "- apiVersion: v1\n  fieldsType: FieldsV1\n  fieldsV1:\n    f:field: {}\n  manager: foo\n  operation: Apply\n";

  it("accepts a well-formed entry", () => {
    expect([...decodeManagedFields(entries(valid)).keys()]).toEqual(['{"manager":"foo","operation":"Apply"}']);
  });

  it.each([
    ["fieldsType FieldsV2", valid.replace("FieldsV1\n", "FieldsV2\n"), /invalid fieldsType "FieldsV2"/],
    ["a missing fieldsType", valid.replace("  fieldsType: FieldsV1\n", ""), /missing fieldsType/],
    ["a missing apiVersion", valid.replace("- apiVersion: v1\n  ", "- "), /apiVersion must not be empty/],
    ["an invalid operation", valid.replace("operation: Apply", "operation: Invalid"), /operation must be `Apply` or `Update`/],
    ["a missing operation", valid.replace("  operation: Apply\n", ""), /operation must be `Apply` or `Update`/],
    ["a fieldsV1 that is no field set", valid.replace("f:field: {}", "bogus: {}"), /error decoding versioned set/],
  ])("refuses %s", (_name, text, message) => {
    expect(() => decodeManagedFields(entries(text))).toThrow(ManagedFieldsError);
    expect(() => decodeManagedFields(entries(text))).toThrow(message);
  });

  it.each([
    '- apiVersion: v1\n  fieldsType: FieldsV1\n  fieldsV1:\n    v:3:\n      f:alsoPi: {}\n    v:3.1415:\n      f:pi: {}\n    v:false:\n      f:notTrue: {}\n  manager: foo\n  operation: Update\n  time: "2001-02-03T04:05:06Z"\n- apiVersion: v1beta1\n  fieldsType: FieldsV1\n  fieldsV1:\n    i:5:\n      f:i: {}\n  manager: foo\n  operation: Update\n  time: "2011-12-13T14:15:16Z"\n',
    '- apiVersion: v1\n  fieldsType: FieldsV1\n  fieldsV1:\n    f:spec:\n      f:containers:\n        k:{"name":"c"}:\n          f:image: {}\n          f:name: {}\n  manager: foo\n  operation: Apply\n',
    '- apiVersion: v1\n  fieldsType: FieldsV1\n  fieldsV1:\n    f:metadata:\n      f:labels:\n        f:app: {}\n    f:spec:\n      f:template:\n        f:spec:\n          f:containers:\n            k:{"name":"nginx"}:\n              .: {}\n              f:image: {}\n              f:ports:\n                i:0:\n                  f:containerPort: {}\n  manager: foo\n  operation: Update\n',
    "- apiVersion: v1\n  fieldsType: FieldsV1\n  fieldsV1:\n    f:spec:\n      f:replicas: {}\n  manager: foo\n  operation: Update\n  subresource: scale\n",
  ])("round-trips entries through field sets (TestRoundTripManagedFields %#)", (text) => {
    expect(encodeManagedFields(decodeManagedFields(entries(text)))).toEqual(entries(text));
  });
});

describe("managerIdentifier", () => {
  it("names an updater by version, an applier without it, and both by subresource", () => {
    expect(managerIdentifier({ manager: "foo", operation: "Update", apiVersion: "v1", subresource: "" })).toBe(
      '{"manager":"foo","operation":"Update","apiVersion":"v1"}',
    );
    expect(managerIdentifier({ manager: "foo", operation: "Apply", apiVersion: "v1", subresource: "" })).toBe(
      '{"manager":"foo","operation":"Apply"}',
    );
    expect(managerIdentifier({ manager: "foo", operation: "Apply", apiVersion: "v1", subresource: "scale" })).toBe(
      '{"manager":"foo","operation":"Apply","subresource":"scale"}',
    );
  });
});

describe("encodeManagedFields order (TestSortEncodedManagedFields)", () => {
  const entry = (
    manager: string,
    operation: "Apply" | "Update",
    time?: string,
    apiVersion = "v1",
    subresource = "",
  ): ManagedFieldsEntry => {
    const out: ManagedFieldsEntry = { manager, operation, apiVersion, fieldsType: "FieldsV1", fieldsV1: { "f:x": {} } };
    if (time !== undefined) out.time = time;
    if (subresource !== "") out.subresource = subresource;
    return out;
  };
  const sorted = (list: ManagedFieldsEntry[]) =>
    encodeManagedFields(decodeManagedFields(list))?.map((e) => [e.manager, e.operation, e.time, e.apiVersion, e.subresource]);
  const T1 = "2001-01-01T01:00:00Z";
  const T2 = "2002-01-01T01:00:00Z";

  it.each([
    ["apply first", [entry("a", "Update", T1), entry("a", "Apply")], [entry("a", "Apply"), entry("a", "Update", T1)]],
    ["manager without time first", [entry("b", "Apply", T1), entry("a", "Apply")], [entry("a", "Apply"), entry("b", "Apply", T1)]],
    [
      "newest last",
      [entry("c", "Update", T1, "v2"), entry("a", "Apply"), entry("c", "Update", T2), entry("b", "Apply")],
      [entry("a", "Apply"), entry("b", "Apply"), entry("c", "Update", T1, "v2"), entry("c", "Update", T2)],
    ],
    [
      "manager last",
      [entry("c", "Update", T1), entry("a", "Apply"), entry("d", "Update", T1), entry("b", "Apply")],
      [entry("a", "Apply"), entry("b", "Apply"), entry("c", "Update", T1), entry("d", "Update", T1)],
    ],
    [
      "apiVersion last",
      [entry("c", "Update", T1, "v3"), entry("c", "Update", T1, "v1"), entry("c", "Update", T1, "v2")],
      [entry("c", "Update", T1, "v1"), entry("c", "Update", T1, "v2"), entry("c", "Update", T1, "v3")],
    ],
    [
      "subresource last",
      [entry("c", "Update", T1, "v1", "status"), entry("c", "Update", T1)],
      [entry("c", "Update", T1), entry("c", "Update", T1, "v1", "status")],
    ],
  ])("%s", (_name, input, expected) => {
    expect(sorted(input)).toEqual(sorted(expected));
    expect(encodeManagedFields(decodeManagedFields(input))).toEqual(expected);
  });

  it("encodes no managers as no managedFields", () => {
    expect(encodeManagedFields(new Map())).toBeUndefined();
  });
});

describe("capUpdateManagers (TestCapUpdateManagers)", () => {
  const hour = (n: number) => new Date(Date.UTC(2001, 0, 1, n)).toISOString().replace(/\.\d+Z$/, "Z");
  const entry = (manager: string, version: string, order: number, ...fields: string[]): ManagedFieldsEntry => ({
    manager,
    operation: "Update",
    apiVersion: version,
    time: hour(order),
    fieldsType: "FieldsV1",
    fieldsV1: Object.fromEntries(fields.map((f) => [`f:${f}`, {}])),
  });
  const cap = (input: ManagedFieldsEntry[]) => {
    const managed = decodeManagedFields(input);
    capUpdateManagers(managed, 3);
    return encodeManagedFields(managed);
  };

  it.each([
    {
      name: "one version, no ancient changes",
      input: [
        entry("update-manager1", "v1", 1, "a"),
        entry("update-manager2", "v1", 2, "b"),
        entry("update-manager3", "v1", 3, "c"),
        entry("update-manager4", "v1", 4, "d"),
      ],
      expected: [entry(ANCIENT_CHANGES, "v1", 2, "a", "b"), entry("update-manager3", "v1", 3, "c"), entry("update-manager4", "v1", 4, "d")],
    },
    {
      name: "one version, one ancient changes",
      input: [
        entry(ANCIENT_CHANGES, "v1", 2, "a", "b"),
        entry("update-manager3", "v1", 3, "c"),
        entry("update-manager4", "v1", 4, "d"),
        entry("update-manager5", "v1", 5, "e"),
      ],
      expected: [
        entry(ANCIENT_CHANGES, "v1", 3, "a", "b", "c"),
        entry("update-manager4", "v1", 4, "d"),
        entry("update-manager5", "v1", 5, "e"),
      ],
    },
    {
      name: "two versions, no ancient changes",
      input: [
        entry("update-manager1", "v1", 1, "a"),
        entry("update-manager2", "v2", 2, "b"),
        entry("update-manager3", "v1", 3, "c"),
        entry("update-manager4", "v1", 4, "d"),
        entry("update-manager5", "v1", 5, "e"),
      ],
      expected: [
        entry("update-manager2", "v2", 2, "b"),
        entry(ANCIENT_CHANGES, "v1", 4, "a", "c", "d"),
        entry("update-manager5", "v1", 5, "e"),
      ],
    },
    {
      name: "three versions, one ancient changes",
      input: [
        entry("update-manager2", "v2", 2, "b"),
        entry(ANCIENT_CHANGES, "v1", 4, "a", "c", "d"),
        entry("update-manager5", "v1", 5, "e"),
        entry("update-manager6", "v3", 6, "f"),
        entry("update-manager7", "v2", 7, "g"),
      ],
      expected: [
        entry(ANCIENT_CHANGES, "v1", 5, "a", "c", "d", "e"),
        entry("update-manager6", "v3", 6, "f"),
        entry(ANCIENT_CHANGES, "v2", 7, "b", "g"),
      ],
    },
    {
      name: "three versions, two ancient changes",
      input: [
        entry(ANCIENT_CHANGES, "v1", 5, "a", "c", "d", "e"),
        entry("update-manager6", "v3", 6, "f"),
        entry(ANCIENT_CHANGES, "v2", 7, "b", "g"),
        entry("update-manager8", "v3", 8, "h"),
      ],
      expected: [
        entry(ANCIENT_CHANGES, "v1", 5, "a", "c", "d", "e"),
        entry(ANCIENT_CHANGES, "v2", 7, "b", "g"),
        entry(ANCIENT_CHANGES, "v3", 8, "f", "h"),
      ],
    },
    {
      name: "four versions, two ancient changes",
      input: [
        entry(ANCIENT_CHANGES, "v1", 5, "a", "c", "d", "e"),
        entry("update-manager6", "v3", 6, "f"),
        entry(ANCIENT_CHANGES, "v2", 7, "b", "g"),
        entry("update-manager8", "v4", 8, "h"),
      ],
      expected: [
        entry(ANCIENT_CHANGES, "v1", 5, "a", "c", "d", "e"),
        entry("update-manager6", "v3", 6, "f"),
        entry(ANCIENT_CHANGES, "v2", 7, "b", "g"),
        entry("update-manager8", "v4", 8, "h"),
      ],
    },
  ])("$name", ({ input, expected }) => {
    expect(cap(input)).toEqual(expected);
    // Idempotent: capping again changes nothing.
    expect(cap(cap(input) ?? [])).toEqual(expected);
  });

  it("leaves appliers out of the count", () => {
    const managed = decodeManagedFields([
      { manager: "x", operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: { "f:x": {} } },
      entry("u1", "v1", 1, "a"),
      entry("u2", "v1", 2, "b"),
      entry("u3", "v1", 3, "c"),
    ]);
    capUpdateManagers(managed, 3);
    expect([...managed.values()].map((e) => e.manager).sort()).toEqual(["u1", "u2", "u3", "x"]);
    expect([...managed.get('{"manager":"x","operation":"Apply"}')!.fields]).toEqual([makePath("f:x")]);
  });
});
