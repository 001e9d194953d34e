import type { KubeObject, ListMeta, Table } from "../api/types.js";
import type { JSONSchemaProps } from "../schema/types.js";
import type { ResourceDefinition } from "../registry/resource-definition.js";
import type { ProtobufListParts } from "../protobuf/codec.js";
import type { ResourceStore } from "../registry/types.js";

/** One resource type the server routes to: its definition and its REST storage. */
export interface ServedResource {
  readonly definition: ResourceDefinition;
  readonly store: ResourceStore;
  /**
   * Subresources written through their own storage, PUT only (upstream's `namespaces/finalize`,
   * an Updater); `status` is served by `store` when the definition has it.
   */
  readonly subresources?: Readonly<Record<string, ResourceStore>>;
}

/** `includeObject` of a Table request: what each row carries besides its cells. */
export type IncludeObject = "None" | "Metadata" | "Object";

/**
 * The pieces the handlers use from the other layers. They are injected so the HTTP layer stays
 * independent of how patching, tables or protobuf are implemented, and so each can be swapped.
 */
export interface HandlerCodecs {
  /** Decodes a `k8s\0` protobuf request body into the JSON form of the object. */
  decodeProtobuf?: (bytes: Uint8Array) => KubeObject;
  /** Encodes an object or list as a `k8s\0` protobuf body; undefined when its kind has no protobuf form. */
  encodeProtobuf?: (object: KubeObject) => Uint8Array | undefined;
  /** A list's protobuf body in parts, so a large list is written while it is read; undefined when its kind has no protobuf form. */
  protobufListParts?: (list: { apiVersion: string; kind: string; metadata: ListMeta }) => ProtobufListParts | undefined;
  applyJsonPatch?: (original: KubeObject, patch: unknown) => KubeObject;
  applyMergePatch?: (original: KubeObject, patch: unknown) => KubeObject;
  applyStrategicMergePatch?: (original: KubeObject, patch: unknown, schema: JSONSchemaProps) => KubeObject;
  /** Paths (e.g. `spec.x`) of fields the schema does not know; used by `fieldValidation`. */
  findUnknownFields?: (object: unknown, schema: JSONSchemaProps) => string[];
  /** Messages (`duplicate field "spec.x"`, `line 9: key "x" already set in map`) for keys a body repeats; used by `fieldValidation`. */
  findDuplicateFields?: (text: string, contentType: string) => string[];
  /**
   * Every fieldValidation message of a body in upstream's order (`unknown field "spec.x"`,
   * `duplicate field "spec.y"`); preferred over the two finders above when present.
   */
  findStrictFieldErrors?: (text: string, contentType: string, object: unknown, schema: JSONSchemaProps | undefined) => string[];
  /** The Table form of objects (printer columns). */
  toTable?: (definition: ResourceDefinition, objects: KubeObject[], options: { listMeta: ListMeta; includeObject: IncludeObject }) => Table;
}
