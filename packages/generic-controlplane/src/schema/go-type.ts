import type { JSONSchemaProps } from "./types.js";

/**
 * The Go type a schema node decodes into on kube-apiserver (`v1.SecretType`, `types.UID`,
 * `v1.LeaseSpec`), for the `cannot unmarshal … of type …` messages of Go's JSON decoder. Kept
 * beside the schema rather than in it, so published OpenAPI documents stay as upstream's. Nodes
 * without a name get one derived from their JSON type (see `validation/field-types.ts`).
 */
const goTypes = new WeakMap<JSONSchemaProps, string>();

/** Names the Go type `schema` stands for and returns the schema. */
export function goType<T extends JSONSchemaProps>(name: string, schema: T): T {
  goTypes.set(schema, name);
  return schema;
}

export function goTypeOf(schema: JSONSchemaProps): string | undefined {
  return goTypes.get(schema);
}
