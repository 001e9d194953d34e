#!/usr/bin/env node
/**
 * Writes src/resources/openapi/components.ts: upstream's OpenAPI component schemas of every kind
 * this package serves (and the kinds it is about to), read from the models @kubernetes/client-node
 * generates from upstream's OpenAPI (field names and types from each model's attributeTypeMap,
 * descriptions and required fields from its declaration file), with schema-overlay.mjs adding what
 * those models leave out. Run with `npm run generate:schemas`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { overlay, packageOf, quantityFields } from "./schema-overlay.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const clientRoot = dirname(require.resolve("@kubernetes/client-node/package.json"));
const modelsDir = join(clientRoot, "dist", "gen", "models");
const clientVersion = JSON.parse(readFileSync(join(clientRoot, "package.json"), "utf8")).version;

/** The kinds, by the API package they belong to; a model first reached from a package's kind belongs to it. */
const ROOTS = [
  [
    "core",
    [
      "V1Pod",
      "V1Service",
      "V1Node",
      "V1Endpoints",
      "V1PodTemplate",
      "V1ReplicationController",
      "V1PersistentVolume",
      "V1PersistentVolumeClaim",
      "V1ResourceQuota",
      "V1LimitRange",
    ],
  ],
  ["apps", ["V1Deployment", "V1ReplicaSet", "V1DaemonSet", "V1ControllerRevision", "V1StatefulSet"]],
  ["batch", ["V1Job", "V1CronJob"]],
  ["discovery", ["V1EndpointSlice"]],
  ["policy", ["V1PodDisruptionBudget"]],
  ["scheduling", ["V1PriorityClass"]],
  ["storage", ["V1StorageClass", "V1CSIDriver", "V1CSINode", "V1VolumeAttachment"]],
  ["networking", ["V1Ingress", "V1IngressClass", "V1NetworkPolicy"]],
  ["node", ["V1RuntimeClass"]],
  ["autoscaling", ["V1HorizontalPodAutoscaler", "V2HorizontalPodAutoscaler"]],
];

/** Kinds' groups for x-kubernetes-group-version-kind. */
const GROUPS = {
  core: "",
  apps: "apps",
  batch: "batch",
  discovery: "discovery.k8s.io",
  policy: "policy",
  scheduling: "scheduling.k8s.io",
  storage: "storage.k8s.io",
  networking: "networking.k8s.io",
  node: "node.k8s.io",
  autoscaling: "autoscaling",
};

/** Models named with their package (CoreV1EndpointPort) and meta/v1 models. */
const PREFIXED = /^(Core|Discovery|Storage|Events|Rbac|Flowcontrol)(V\d\w*?)([A-Z]\w*)$/;

function readModel(className) {
  const js = readFileSync(join(modelsDir, `${className}.js`), "utf8");
  const dts = readFileSync(join(modelsDir, `${className}.d.ts`), "utf8");
  const map = /attributeTypeMap = (\[[\s\S]*?\]);/.exec(js);
  if (map === null) throw new Error(`${className}: no attributeTypeMap`);
  const classDoc = /\/\*\*\n((?:\*.*\n)+?)\*\/\nexport declare class/.exec(dts);
  const fields = new Map();
  // Each field: an optional doc comment, then `'name'?: type;`.
  const fieldPattern = /(?:\/\*\*\n((?:[ \t]*\*(?!\/).*\n)+?)[ \t]*\*\/\n)?[ \t]*'([^']+)'(\??):/g;
  for (const match of dts.matchAll(fieldPattern)) {
    fields.set(match[2], { description: docText(match[1]), required: match[3] !== "?" });
  }
  return { attributes: JSON.parse(map[1]), description: docText(classDoc?.[1]), fields };
}

function docText(block) {
  if (block === undefined) return undefined;
  const text = block
    .split("\n")
    .map((line) => line.replace(/^[ \t]*\* ?/, ""))
    .join("\n")
    .replaceAll(/\\(["'])/g, "$1")
    .trim();
  return text === "" ? undefined : text;
}

const versionOf = (className) => /^V(\d+(?:alpha\d+|beta\d+)?)/.exec(className)?.[1];

const componentNames = new Map();
function componentName(className, inherited) {
  let name = componentNames.get(className);
  if (name !== undefined) return name;
  const prefixed = PREFIXED.exec(className);
  if (prefixed !== null) {
    name = `io.k8s.api.${prefixed[1].toLowerCase()}.${prefixed[2].toLowerCase()}.${prefixed[3]}`;
  } else {
    const version = versionOf(className);
    if (version === undefined) throw new Error(`${className}: no version prefix`);
    const bare = className.slice(1 + version.length);
    name = packageOf[className] !== undefined ? `${packageOf[className]}.${bare}` : `io.k8s.api.${inherited}.v${version}.${bare}`;
  }
  componentNames.set(className, name);
  return name;
}

/** ObjectMeta is the control plane's own (with its strategic-merge extensions): referenced, never emitted. */
const OBJECT_META = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const MODEL = /^(?:V\d|Core|Discovery|Storage|Events|Rbac|Flowcontrol)\w*$/;
const ref = (className) => ({ $ref: `#/components/schemas/${componentNames.get(className)}` });
const intOrString = () => ({ "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] });

function fieldSchema(type, format, pending, quantity) {
  const array = /^Array<(.+)>$/.exec(type);
  if (array !== null) return { type: "array", items: fieldSchema(array[1], format, pending, quantity) };
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map !== null) return { type: "object", additionalProperties: fieldSchema(map[1], format, pending, quantity) };
  if (quantity) return intOrString();
  switch (type) {
    case "string":
      return format === "byte" ? { type: "string", format: "byte" } : { type: "string" };
    case "boolean":
      return { type: "boolean" };
    case "number":
      return format === "double" ? { type: "number", format: "double" } : { type: "integer", format };
    case "Date":
      return { type: "string", format: "date-time" };
    case "IntOrString":
      return intOrString();
    case "any":
      return { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  }
  if (!MODEL.test(type)) throw new Error(`unknown type ${type}`);
  if (type === "V1ObjectMeta") return { $ref: OBJECT_META };
  pending.push(type);
  return { $ref: type };
}

function withDescription(schema, description) {
  if (description === undefined) return schema;
  // A reference with a description is wrapped in allOf, as upstream's OpenAPI v3 does.
  if (schema.$ref !== undefined) return { allOf: [schema], description };
  return { description, ...schema };
}

const components = {};
const queue = [];
for (const [pkg, roots] of ROOTS) {
  for (const root of roots) queue.push([root, pkg, true]);
  while (queue.length > 0) {
    const [className, inherited, isKind] = queue.shift();
    if (componentNames.has(className) && components[componentNames.get(className)] !== undefined) continue;
    const name = componentName(className, inherited);
    const pkgOfName = /^io\.k8s\.api\.(\w+)\./.exec(name)?.[1] ?? inherited;
    const model = readModel(className);
    const extra = overlay[name] ?? {};
    const quantities = new Set(quantityFields[name] ?? []);
    const properties = {};
    const required = [];
    const pending = [];
    for (const attribute of [...model.attributes].sort((a, b) => a.baseName.localeCompare(b.baseName))) {
      const field = model.fields.get(attribute.name) ?? model.fields.get(attribute.baseName);
      const schema = fieldSchema(attribute.type, attribute.format, pending, quantities.has(attribute.baseName));
      quantities.delete(attribute.baseName);
      properties[attribute.baseName] = { ...withDescription(schema, field?.description), ...extra[attribute.baseName] };
      if (field?.required) required.push(attribute.baseName);
    }
    if (quantities.size > 0) throw new Error(`${name}: quantity fields ${[...quantities]} not found`);
    for (const key of Object.keys(extra)) {
      if (key !== "$self" && properties[key] === undefined) throw new Error(`${name}: overlay field ${key} not found`);
    }
    const schema = { type: "object" };
    if (model.description !== undefined) schema.description = model.description;
    schema.properties = properties;
    if (required.length > 0) schema.required = required;
    Object.assign(schema, extra.$self);
    if (isKind) {
      const version = `v${versionOf(className)}`;
      schema["x-kubernetes-group-version-kind"] = [{ group: GROUPS[pkgOfName], version, kind: className.slice(version.length) }];
    }
    components[name] = schema;
    for (const child of pending) {
      if (!componentNames.has(child)) queue.push([child, pkgOfName, false]);
      else if (components[componentNames.get(child)] === undefined && !queue.some(([c]) => c === child))
        queue.push([child, pkgOfName, false]);
    }
  }
}
// A field typed by another model has no description of its own in the models: it gets the model's.
for (const component of Object.values(components)) {
  for (const [field, property] of Object.entries(component.properties)) {
    if (typeof property.$ref !== "string" || property.$ref.startsWith("#")) continue;
    const description = components[componentNames.get(property.$ref)]?.description;
    if (description !== undefined) component.properties[field] = withDescription(property, description);
  }
}
// Every reference by class name becomes a reference by component name.
const resolveRefs = (value) => {
  if (Array.isArray(value)) return value.map(resolveRefs);
  if (typeof value !== "object" || value === null) return value;
  if (typeof value.$ref === "string" && !value.$ref.startsWith("#")) return ref(value.$ref);
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, resolveRefs(child)]));
};
const resolved = Object.fromEntries(
  Object.keys(components)
    .sort()
    .map((name) => [name, resolveRefs(components[name])]),
);
for (const name of Object.keys(overlay)) if (resolved[name] === undefined) throw new Error(`overlay names ${name}, which is not generated`);

const out = join(here, "..", "src", "resources", "openapi", "components.ts");
const body = `/* Generated by scripts/generate-schemas.mjs from @kubernetes/client-node ${clientVersion} (upstream's OpenAPI, release-1.36); do not edit. */
import type { JSONSchemaProps } from "@kubekit/generic-controlplane/registry";

export const components: Readonly<Record<string, JSONSchemaProps>> = ${JSON.stringify(resolved, null, 2)};
`;
writeFileSync(out, body);
console.log(`${Object.keys(resolved).length} components, ${body.length} bytes → ${out}`);
