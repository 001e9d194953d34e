import { describe, expect, it } from "vitest";
import { declaredProperty } from "./declared-property.js";

describe("declaredProperty", () => {
  const schema = { type: "object" as const, properties: { replicas: { type: "integer" as const } } };

  it("answers the declared properties", () => {
    expect(declaredProperty(schema, "replicas")).toEqual({ type: "integer" });
    expect(declaredProperty(schema, "color")).toBeUndefined();
    expect(declaredProperty({ type: "object" }, "replicas")).toBeUndefined();
    expect(declaredProperty(undefined, "replicas")).toBeUndefined();
  });

  it.each(Object.getOwnPropertyNames(Object.prototype))("does not count %s, which every object inherits, as declared", (name) => {
    expect(declaredProperty(schema, name)).toBeUndefined();
  });

  it("finds a property a schema does declare under a prototype name", () => {
    const declared = JSON.parse('{"properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}}}') as typeof schema;
    expect(declaredProperty(declared, "__proto__")).toEqual({ type: "string" });
    expect(declaredProperty(declared, "constructor")).toEqual({ type: "integer" });
  });
});
