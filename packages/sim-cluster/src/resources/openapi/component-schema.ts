import type { JSONSchemaProps, ResourceDefinition } from "@kubekit/generic-controlplane/registry";
import { components } from "./components.js";

const PREFIX = "#/components/schemas/";

/**
 * Resource definitions carry self-contained schemas (the control plane resolves `$ref`s only into
 * its meta/v1 definitions), so each generated component's references are replaced by the
 * referenced component itself. One object per component, shared by every kind that uses it: the
 * control plane's per-node caches see each PodSpec once, however many workload kinds embed it.
 */
const built = new Map<string, JSONSchemaProps>();
const building = new Set<string>();
const names = new WeakMap<JSONSchemaProps, string>();

/** The schema of the generated component `name` (e.g. `io.k8s.api.apps.v1.Deployment`), references inlined. */
export function componentSchema(name: string): JSONSchemaProps {
  const done = built.get(name);
  if (done !== undefined) return done;
  const component = Object.hasOwn(components, name) ? components[name] : undefined;
  if (component === undefined) throw new Error(`no generated schema named ${name}`);
  if (building.has(name)) throw new Error(`schema ${name} refers to itself`);
  building.add(name);
  const schema = inline(component);
  building.delete(name);
  built.set(name, schema);
  names.set(schema, name);
  return schema;
}

/**
 * `definition` publishing its schema as upstream does: the generated component with `$ref`s
 * into the others (so `kubectl explain` shows `template <PodTemplateSpec>`), while the server
 * keeps working from the self-contained schema.
 */
export function withPublishedSchema(definition: ResourceDefinition): ResourceDefinition {
  const name = definition.schema === undefined ? undefined : names.get(definition.schema);
  const component = name === undefined ? undefined : components[name];
  return component === undefined ? definition : { ...definition, openapi: { schema: component, components } };
}

function referenced(schema: JSONSchemaProps): string | undefined {
  const reference = schema.$ref ?? (schema.allOf?.length === 1 ? schema.allOf[0]?.$ref : undefined);
  if (reference === undefined || !reference.startsWith(PREFIX)) return undefined;
  const name = reference.slice(PREFIX.length);
  return Object.hasOwn(components, name) ? name : undefined;
}

function inline(schema: JSONSchemaProps): JSONSchemaProps {
  const name = referenced(schema);
  if (name !== undefined) {
    const { $ref: _ref, allOf: _allOf, ...siblings } = schema;
    const target = componentSchema(name);
    return Object.keys(siblings).length === 0 ? target : { ...target, ...siblings };
  }
  const out: JSONSchemaProps = { ...schema };
  if (schema.properties !== undefined) {
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([key, property]) => [key, inline(property)]));
  }
  if (schema.items !== undefined) out.items = inline(schema.items);
  if (typeof schema.additionalProperties === "object") out.additionalProperties = inline(schema.additionalProperties);
  return out;
}
