import type { KubeObject } from "../api/types.js";
import { notAllowedWhileTerminating } from "../api/errors/index.js";
import type { PrinterColumn, ResourceDefinition, ResourceStrategy } from "../registry/rest/resource-definition.js";
import type { JSONSchemaProps } from "../schema/types.js";
import type { FieldError } from "../validation/index.js";
import { compareKubeVersions } from "../discovery/versions.js";
import { convertNone, type CustomResourceConverter } from "./conversion.js";
import { compilePath } from "./jsonpath.js";
import type { CompiledCustomResourceSchema, CustomResourceSchemas } from "./schema-seam.js";
import {
  isConditionTrue,
  storageVersionOf,
  type CustomResourceColumnDefinition,
  type CustomResourceDefinition,
  type CustomResourceDefinitionVersion,
} from "./types.js";
import { SCALE_SUBRESOURCE, scaleErrors } from "./scale.js";
import { stringifyExactJson } from "../api/exact-json.js";

const AGE_DESCRIPTION =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/** How one value shows in a `string` column or a field selector (client-go's jsonpath printing). */
function printValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null || value === undefined) return "";
  return stringifyExactJson(value);
}

/** upstream tableconvertor's `cellForJSONValue`: a cell only when the value has the column's type. */
function typedCell(type: string, value: unknown): unknown {
  switch (type) {
    case "integer":
      return typeof value === "number" ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "date":
      return typeof value === "string" ? value : null;
    default:
      return null;
  }
}

/** An additionalPrinterColumn as a printer column (upstream `tableconvertor.New`). */
function printerColumn(column: CustomResourceColumnDefinition): PrinterColumn {
  const find = compilePath(column.jsonPath ?? "");
  const type = (column.type ?? "string") as PrinterColumn["type"];
  return {
    name: column.name ?? "",
    type,
    ...(column.format ? { format: column.format } : {}),
    description: column.description ?? "",
    priority: column.priority ?? 0,
    cell: (object) => {
      const results = find(object);
      if (results.length === 0) return null;
      return type === "string" ? printValue(results[0]) : typedCell(type, results[0]);
    },
  };
}

/** Columns of a version: its additionalPrinterColumns, or Age when it has none (upstream `serveDefaultColumnsIfEmpty`). */
function printerColumns(version: CustomResourceDefinitionVersion): PrinterColumn[] {
  const columns = version.additionalPrinterColumns ?? [];
  if (columns.length === 0)
    return [printerColumn({ name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp", description: AGE_DESCRIPTION })];
  return columns.map(printerColumn);
}

/** selectableFields as field selector labels (`spec.color`), valued as the field prints. */
function fieldSelectors(version: CustomResourceDefinitionVersion): Record<string, (object: KubeObject) => string | undefined> {
  const selectors: Record<string, (object: KubeObject) => string | undefined> = {};
  for (const field of version.selectableFields ?? []) {
    if (!field.jsonPath) continue;
    const find = compilePath(field.jsonPath);
    selectors[field.jsonPath.replace(/^\./, "")] = (object) => printValue(find(object)[0]);
  }
  return selectors;
}

/** The served schema: the CRD's, with the type meta fields every object has. */
function servedSchema(schema: JSONSchemaProps | undefined): JSONSchemaProps {
  const root: JSONSchemaProps = schema ?? { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  return {
    ...root,
    type: "object",
    properties: {
      ...(root.properties ?? {}),
      apiVersion: {
        type: "string",
        description:
          "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources",
      },
      kind: {
        type: "string",
        description:
          "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds",
      },
      // The server publishes ObjectMeta in its place (a CRD may only narrow name and generateName).
      metadata: { type: "object" },
    },
  };
}

/**
 * upstream `defaultDeprecationWarning`, or the version's own `deprecationWarning`: what requests to
 * a deprecated version are warned, naming the newest served version that is not deprecated.
 */
export function deprecationWarning(crd: CustomResourceDefinition, version: CustomResourceDefinitionVersion): string | undefined {
  if (version.deprecated !== true) return undefined;
  if (version.deprecationWarning !== undefined) return version.deprecationWarning;
  const group = crd.spec?.group ?? "";
  const kind = crd.spec?.names?.kind ?? "";
  const deprecated = version.name ?? "";
  const message = `${group}/${deprecated} ${kind} is deprecated`;
  const newer = (crd.spec?.versions ?? [])
    .filter((v) => v.served === true && v.deprecated !== true && v.name !== undefined && compareKubeVersions(v.name, deprecated) < 0)
    .map((v) => v.name!)
    .sort(compareKubeVersions);
  return newer.length === 0 ? message : `${message}; use ${group}/${newer[0]} ${kind}`;
}

export interface CustomResourceOptions {
  /**
   * The CRD's converter (strategy `Webhook`), undefined for `None`. With one, the definitions carry
   * it as `versionConverter` and no `storedAs` conversion: the store of each is given storage that
   * converts (see `conversion/converting-storage.ts`). Without, `None` rewrites `apiVersion`.
   */
  converter?: CustomResourceConverter | undefined;
  schemas?: CustomResourceSchemas | undefined;
}

/** The strategy of one served version: schema defaulting and validation, scale checks, termination. */
function customResourceStrategy(
  crd: CustomResourceDefinition,
  version: CustomResourceDefinitionVersion,
  compiled: CompiledCustomResourceSchema | undefined,
  defaultOnRead: boolean,
): ResourceStrategy {
  const group = crd.spec?.group ?? "";
  const plural = crd.spec?.names?.plural ?? "";
  const terminating = isConditionTrue(crd, "Terminating");
  const scale = version.subresources?.scale;
  const validate = (object: KubeObject, old?: KubeObject): FieldError[] => [
    ...(compiled?.validate(object, old) ?? []),
    ...(scale !== undefined ? scaleErrors(object, scale) : []),
  ];
  return {
    // As the custom resource decoder does: unknown fields pruned, then defaults filled in.
    prepareForCreate(object) {
      if (terminating) throw notAllowedWhileTerminating({ group, resource: plural }, "create");
      compiled?.prune(object);
      compiled?.applyDefaults(object);
    },
    prepareForUpdate(object) {
      compiled?.prune(object);
      compiled?.applyDefaults(object);
    },
    validate: (object) => validate(object),
    validateUpdate: (object, old) => validate(object, old),
    // With a converter, reads are defaulted in the stored version before conversion (converting-storage.ts).
    ...(defaultOnRead
      ? {
          decorate(object: KubeObject) {
            compiled?.applyDefaults(object);
          },
        }
      : {}),
  };
}

/**
 * The resource definitions serving a CRD: one per served version, all kept under the CRD's
 * storage keys in its storage version (upstream's crdHandler and customresource registry).
 */
export function customResourceDefinitionsFor(crd: CustomResourceDefinition, options: CustomResourceOptions): ResourceDefinition[] {
  const spec = crd.spec ?? {};
  const group = spec.group ?? "";
  const names = { ...spec.names, ...crd.status?.acceptedNames };
  const plural = spec.names?.plural ?? "";
  const storageVersion = storageVersionOf(crd) ?? "";
  const storageApiVersion = `${group}/${storageVersion}`;
  return (spec.versions ?? [])
    .filter((version) => version.served === true && version.name)
    .map((version): ResourceDefinition => {
      const apiVersion = `${group}/${version.name}`;
      const schema = version.schema?.openAPIV3Schema;
      const compiled = schema !== undefined ? options.schemas?.compileSchema(schema) : undefined;
      const scale = version.subresources?.scale;
      return {
        group,
        version: version.name!,
        kind: names.kind ?? "",
        ...(names.listKind ? { listKind: names.listKind } : {}),
        plural,
        singular: names.singular ?? "",
        scope: spec.scope === "Cluster" ? "Cluster" : "Namespaced",
        ...(names.shortNames?.length ? { shortNames: names.shortNames } : {}),
        ...(names.categories?.length ? { categories: names.categories } : {}),
        schema: servedSchema(schema),
        unstructured: true,
        statusSubresource: version.subresources?.status !== undefined,
        tracksGeneration: true,
        ...(scale !== undefined ? { subresources: [SCALE_SUBRESOURCE] } : {}),
        printerColumns: printerColumns(version),
        fieldSelectors: fieldSelectors(version),
        strategy: customResourceStrategy(crd, version, compiled, options.converter === undefined),
        ...(options.converter !== undefined
          ? { versionConverter: options.converter }
          : {
              storedAs: {
                group,
                plural,
                toStorage: (object: KubeObject) => convertNone(object, storageApiVersion),
                fromStorage: (object: KubeObject) => (object.apiVersion === apiVersion ? object : convertNone(object, apiVersion)),
              },
            }),
      };
    });
}
