import type { JSONSchemaProps } from "./types.js";

/**
 * The schema `schema` declares for property `key`, or undefined. A client's key is a plain
 * string: `constructor`, `toString` or `__proto__` are declared only when the schema lists them,
 * never because every JavaScript object inherits them. Every schema walker asks this.
 */
export function declaredProperty(schema: JSONSchemaProps | undefined, key: string): JSONSchemaProps | undefined {
  const properties = schema?.properties;
  return properties !== undefined && Object.hasOwn(properties, key) ? properties[key] : undefined;
}
