import { describe, expect, it } from "vitest";
import type { JSONSchemaProps } from "../schema/types.js";
import { formatFieldError } from "../validation/field-errors.js";
import { compileValidationRules } from "./validator.js";

function schemaWith(spec: JSONSchemaProps): JSONSchemaProps {
  return { type: "object", properties: { spec } };
}

function rules(...entries: object[]): object {
  return { "x-kubernetes-validations": entries };
}

function messages(schema: JSONSchemaProps, self: unknown, oldSelf?: unknown): string[] {
  const validate = compileValidationRules(schema);
  if (validate === undefined) throw new Error("expected rules to compile");
  return validate(self, oldSelf).map(formatFieldError);
}

describe("compileValidationRules", () => {
  it("returns undefined for a schema without rules", () => {
    expect(compileValidationRules(schemaWith({ type: "object", properties: { a: { type: "string" } } }))).toBeUndefined();
  });

  it("reports a failed rule on an object at its path with the default message", () => {
    const schema = schemaWith({
      type: "object",
      properties: { minReplicas: { type: "integer" }, maxReplicas: { type: "integer" } },
      ...rules({ rule: "self.minReplicas <= self.maxReplicas" }),
    });
    expect(messages(schema, { spec: { minReplicas: 1, maxReplicas: 3 } })).toEqual([]);
    expect(messages(schema, { spec: { minReplicas: 5, maxReplicas: 3 } })).toEqual([
      'spec: Invalid value: "object": failed rule: self.minReplicas <= self.maxReplicas',
    ]);
  });

  it("uses message, messageExpression, reason and fieldPath", () => {
    const schema = schemaWith({
      type: "object",
      properties: { replicas: { type: "integer" }, max: { type: "integer" } },
      ...rules(
        {
          rule: "self.replicas <= self.max",
          message: "replicas must not exceed max",
          reason: "FieldValueForbidden",
          fieldPath: ".replicas",
        },
        { rule: "self.replicas >= 0", messageExpression: "'replicas is ' + string(self.replicas) + ', want >= 0'" },
        { rule: "self.max < 100", message: "too big", reason: "FieldValueRequired" },
        { rule: "self.max != 7", reason: "FieldValueDuplicate" },
      ),
    });
    expect(messages(schema, { spec: { replicas: -9, max: -10 } })).toEqual([
      "spec.replicas: Forbidden: replicas must not exceed max",
      'spec: Invalid value: "object": replicas is -9, want >= 0',
    ]);
    expect(messages(schema, { spec: { replicas: 1, max: 100 } })).toEqual(["spec: Required value: too big"]);
    expect(messages(schema, { spec: { replicas: 1, max: 7 } })).toEqual(['spec: Duplicate value: "object"']);
  });

  it("falls back to the message when the messageExpression fails", () => {
    const schema = schemaWith({
      type: "object",
      properties: { a: { type: "integer" } },
      ...rules({ rule: "self.a > 0", message: "a must be positive", messageExpression: "self.missing" }),
    });
    expect(messages(schema, { spec: { a: 0 } })).toEqual(['spec: Invalid value: "object": a must be positive']);
  });

  it("evaluates rules on scalars, list items and map values with their paths", () => {
    const schema = schemaWith({
      type: "object",
      properties: {
        name: { type: "string", ...rules({ rule: "self.startsWith('x-')" }) },
        ports: { type: "array", items: { type: "integer", ...rules({ rule: "self > 0 && self < 65536" }) } },
        labels: {
          type: "object",
          additionalProperties: { type: "string", ...rules({ rule: "size(self) < 4", message: "short values only" }) },
        },
      },
    });
    expect(messages(schema, { spec: { name: "x-a", ports: [80, 443], labels: { a: "b" } } })).toEqual([]);
    expect(messages(schema, { spec: { name: "a", ports: [80, 0], labels: { "app.kubernetes.io/name": "long value" } } })).toEqual([
      "spec.name: Invalid value: \"string\": failed rule: self.startsWith('x-')",
      'spec.ports[1]: Invalid value: "integer": failed rule: self > 0 && self < 65536',
      'spec.labels[app.kubernetes.io/name]: Invalid value: "string": short values only',
    ]);
  });

  it("runs transition rules only when an old value correlates", () => {
    const schema = schemaWith({
      type: "object",
      properties: { size: { type: "integer", ...rules({ rule: "self >= oldSelf", message: "size may not shrink" }) } },
    });
    expect(messages(schema, { spec: { size: 1 } })).toEqual([]);
    expect(messages(schema, { spec: { size: 1 } }, { spec: { size: 2 } })).toEqual([
      'spec.size: Invalid value: "integer": size may not shrink',
    ]);
    expect(messages(schema, { spec: { size: 3 } }, { spec: { size: 2 } })).toEqual([]);
    expect(messages(schema, { spec: { size: 1 } }, { spec: {} })).toEqual([]);
  });

  it("makes oldSelf an optional under optionalOldSelf, empty on create", () => {
    const schema = schemaWith({
      type: "object",
      properties: {
        name: {
          type: "string",
          ...rules({ rule: "!oldSelf.hasValue() || self == oldSelf.value()", message: "name is immutable", optionalOldSelf: true }),
        },
        tier: {
          type: "string",
          ...rules({ rule: "oldSelf.hasValue() || self == 'free'", message: "new objects start free", optionalOldSelf: true }),
        },
      },
    });
    expect(messages(schema, { spec: { name: "a", tier: "gold" } })).toEqual(['spec.tier: Invalid value: "string": new objects start free']);
    expect(messages(schema, { spec: { name: "b", tier: "gold" } }, { spec: { name: "a", tier: "free" } })).toEqual([
      'spec.name: Invalid value: "string": name is immutable',
    ]);
  });

  it("correlates list-map items by key and never set or atomic list items", () => {
    const item = {
      type: "object",
      properties: { name: { type: "string" }, value: { type: "integer", ...rules({ rule: "self >= oldSelf", message: "no decrease" }) } },
    };
    const schema = schemaWith({
      type: "object",
      properties: { entries: { type: "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], items: item } },
    } as JSONSchemaProps);
    const old = {
      spec: {
        entries: [
          { name: "a", value: 5 },
          { name: "b", value: 1 },
        ],
      },
    };
    expect(
      messages(
        schema,
        {
          spec: {
            entries: [
              { name: "b", value: 0 },
              { name: "a", value: 6 },
            ],
          },
        },
        old,
      ),
    ).toEqual(['spec.entries[0].value: Invalid value: "integer": no decrease']);
  });

  it("types integers as int and numbers as double", () => {
    const schema = schemaWith({
      type: "object",
      properties: { i: { type: "integer" }, n: { type: "number" } },
      ...rules({ rule: "type(self.i) == int && type(self.n) == double && self.n == 1.0" }),
    });
    expect(messages(schema, { spec: { i: 1, n: 1 } })).toEqual([]);
  });

  it("types date-time strings as timestamps and duration strings as durations", () => {
    const schema = schemaWith({
      type: "object",
      properties: { expires: { type: "string", format: "date-time" }, timeout: { type: "string", format: "duration" } },
      ...rules(
        { rule: "self.expires > timestamp('2024-01-01T00:00:00Z')", message: "expires must be in 2024 or later" },
        { rule: "self.timeout <= duration('1h')", message: "timeout is at most an hour" },
      ),
    });
    expect(messages(schema, { spec: { expires: "2024-06-01T10:00:00.5+02:00", timeout: "1h" } })).toEqual([]);
    expect(messages(schema, { spec: { expires: "2023-12-31T23:59:59Z", timeout: "1h0m0.001s" } })).toEqual([
      'spec: Invalid value: "object": expires must be in 2024 or later',
      'spec: Invalid value: "object": timeout is at most an hour',
    ]);
  });

  it("escapes property names and exposes metadata.name at the root", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: {
        metadata: { type: "object" },
        spec: { type: "object", properties: { "max-size": { type: "integer" }, namespace: { type: "string" } } },
      },
      ...rules({ rule: "self.spec.max__dash__size < 10 && self.spec.__namespace__ == self.metadata.name" }),
    };
    expect(messages(schema, { metadata: { name: "n1" }, spec: { "max-size": 5, namespace: "n1" } })).toEqual([]);
    expect(messages(schema, { metadata: { name: "n1" }, spec: { "max-size": 5, namespace: "n2" } })).toHaveLength(1);
  });

  it("reports evaluation errors in cel-go's words", () => {
    const schema = schemaWith({
      type: "object",
      properties: { a: { type: "string" }, b: { "x-kubernetes-int-or-string": true } },
      ...rules({ rule: "self.a == 'x'" }, { rule: "self.b > 1" }),
    });
    expect(messages(schema, { spec: { b: "str" } })).toEqual([
      "spec: Invalid value: \"object\": no such key: a evaluating rule: self.a == 'x'",
      "spec: Invalid value: \"object\": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self.b > 1",
    ]);
  });

  it("stops a rule whose cost on the actual value exceeds the per-call limit", () => {
    const schema = schemaWith({ type: "array", items: { type: "integer" }, ...rules({ rule: "self.exists(x, x == 0)" }) });
    expect(messages(schema, { spec: new Array<number>(1000).fill(0) })).toEqual([]);
    expect(messages(schema, { spec: new Array<number>(250_000).fill(0) })).toEqual([
      `spec: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.exists(x, x == 0)`,
    ]);
  });

  it("stops validating once the object's cost budget is spent", () => {
    const schema = schemaWith({
      type: "object",
      properties: {
        lists: { type: "array", items: { type: "array", items: { type: "integer" }, ...rules({ rule: "self.exists(x, x == 0)" }) } },
      },
    });
    const lists = (count: number) => Array.from({ length: count }, () => new Array<number>(100_000).fill(0));
    expect(messages(schema, { spec: { lists: lists(19) } })).toEqual([]);
    expect(messages(schema, { spec: { lists: lists(21) } })).toEqual([
      'spec.lists[19]: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run',
    ]);
  });

  it("reports root rules at <nil> as upstream does", () => {
    const schema = {
      type: "object",
      properties: { spec: { type: "object" } },
      ...rules({ rule: "has(self.spec)", message: "spec is required" }),
    } as JSONSchemaProps;
    expect(messages(schema, { metadata: { name: "x" } })).toEqual(['<nil>: Invalid value: "object": spec is required']);
  });
});
