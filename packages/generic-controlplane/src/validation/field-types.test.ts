import { describe, expect, it } from "vitest";
import { configMapsResource, leasesResource, namespacesResource, secretsResource } from "../control-plane/builtin-resources.js";
import { carryFieldTypesCheck, fieldTypeError, passedFieldTypes, patchedFieldTypeError } from "./field-types.js";

const check = (
  object: Record<string, unknown>,
  definition = configMapsResource,
  numberLiteral?: (holder: object, key: string) => string | undefined,
) => fieldTypeError(object, definition.schema, { kind: definition.kind, ...(numberLiteral ? { numberLiteral } : {}) });

describe("fieldTypeError", () => {
  it("accepts well-typed objects and leaves fields the schema does not declare alone", () => {
    const object = {
      metadata: { name: "a", labels: { a: "b" }, finalizers: ["x/y"], generation: 2 },
      data: { k: "v" },
      immutable: true,
      extra: [1],
    };
    expect(check(object)).toBeUndefined();
    expect(object.extra).toEqual([1]);
  });

  it.each([
    [{ metadata: "x" }, "json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta"],
    [{ metadata: { name: 5 } }, "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string"],
    [{ metadata: { uid: 5 } }, "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.uid of type types.UID"],
    [{ metadata: { labels: { a: 1 } } }, "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"],
    [
      { metadata: { labels: ["a"] } },
      "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string",
    ],
    [
      { metadata: { finalizers: "a" } },
      "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string",
    ],
    [{ metadata: { generation: "1" } }, "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.generation of type int64"],
    [
      { metadata: { generation: 1.5 } },
      "json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64",
    ],
    [
      { metadata: { generation: 2 ** 63 } },
      "json: cannot unmarshal number 9223372036854775808 into Go struct field ObjectMeta.metadata.generation of type int64",
    ],
    [
      { metadata: { creationTimestamp: 5 } },
      "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string",
    ],
    [
      { metadata: { ownerReferences: [true] } },
      "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.ownerReferences of type v1.OwnerReference",
    ],
    [
      { metadata: { ownerReferences: [{ uid: 1 }] } },
      "json: cannot unmarshal number into Go struct field OwnerReference.metadata.ownerReferences.uid of type types.UID",
    ],
    [
      { metadata: { managedFields: [{ operation: 1 }] } },
      "json: cannot unmarshal number into Go struct field ManagedFieldsEntry.metadata.managedFields.operation of type v1.ManagedFieldsOperationType",
    ],
    [{ immutable: [1] }, "json: cannot unmarshal array into Go struct field ConfigMap.immutable of type bool"],
    [
      { metadata: { creationTimestamp: "yesterday" } },
      'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
    ],
    [
      { metadata: { managedFields: [{ time: "2026-01-01T00:00:00" }] } },
      'parsing time "2026-01-01T00:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"',
    ],
    [{ binaryData: { a: 1 } }, "json: cannot unmarshal number into Go struct field ConfigMap.binaryData of type []uint8"],
    [{ binaryData: { a: "!!!" } }, "illegal base64 data at input byte 0"],
    [{ kind: 1 }, "json: cannot unmarshal number into Go struct field ConfigMap.kind of type string"],
  ])("rejects %j like Go's decoder", (object, message) => {
    expect(check(object)).toBe(message);
  });

  it("names the Go types of other built-ins", () => {
    expect(check({ type: 5 }, secretsResource)).toBe(
      "json: cannot unmarshal number into Go struct field Secret.type of type v1.SecretType",
    );
    expect(check({ spec: { leaseTransitions: 2 ** 31 } }, leasesResource)).toBe(
      "json: cannot unmarshal number 2147483648 into Go struct field LeaseSpec.spec.leaseTransitions of type int32",
    );
    expect(check({ spec: { finalizers: [1] } }, namespacesResource)).toBe(
      "json: cannot unmarshal number into Go struct field NamespaceSpec.spec.finalizers of type v1.FinalizerName",
    );
    expect(check({ status: { conditions: [{ status: true }] } }, namespacesResource)).toBe(
      "json: cannot unmarshal bool into Go struct field NamespaceCondition.status.conditions.status of type v1.ConditionStatus",
    );
  });

  it("quotes an integer JSON.parse rounded as the client sent it, and accepts the largest int64", () => {
    const literal = (digits: string) => () => digits;
    expect(check({ metadata: { generation: 1e29 } }, configMapsResource, literal("123456789012345678901234567890"))).toBe(
      "json: cannot unmarshal number 123456789012345678901234567890 into Go struct field ObjectMeta.metadata.generation of type int64",
    );
    expect(check({ metadata: { generation: 2 ** 63 } }, configMapsResource, literal("9223372036854775807"))).toBeUndefined();
  });

  it("decodes null as Go's zero value: unset fields, empty map values and list items", () => {
    const object: Record<string, unknown> = {
      metadata: { name: "a", labels: null, annotations: { a: null }, finalizers: [null] },
      data: null,
      immutable: null,
    };
    expect(check(object)).toBeUndefined();
    expect(object).toEqual({ metadata: { name: "a", annotations: { a: "" }, finalizers: [""] } });
    const namespace: Record<string, unknown> = { status: { conditions: [null] } };
    expect(check(namespace, namespacesResource)).toBeUndefined();
    expect(namespace).toEqual({ status: { conditions: [{}] } });
  });
});

describe("patchedFieldTypeError", () => {
  it("gives the same message as fieldTypeError and remembers only a pass, so the registry checks a failed object again", () => {
    const good = { metadata: { name: "a", labels: null }, data: { k: "v" } };
    expect(patchedFieldTypeError(good, configMapsResource)).toBeUndefined();
    // Normalised as fieldTypeError normalises: a null field is unset.
    expect(good.metadata).toEqual({ name: "a" });
    expect(passedFieldTypes(good, configMapsResource)).toBe(true);
    expect(passedFieldTypes(good, secretsResource)).toBe(false);
    const copy = structuredClone(good);
    carryFieldTypesCheck(good, copy);
    expect(passedFieldTypes(copy, configMapsResource)).toBe(true);

    const bad = { metadata: { name: "a" }, immutable: [1] };
    expect(patchedFieldTypeError(structuredClone(bad), configMapsResource)).toBe(check(structuredClone(bad)));
    expect(patchedFieldTypeError(bad, configMapsResource)).toContain("cannot unmarshal array");
    expect(passedFieldTypes(bad, configMapsResource)).toBe(false);
  });
});
