import type { JSONSchemaProps } from "../schema/types.js";

/**
 * The schema narrowed to the sizes a value actually has: `maxItems`, `maxLength` and
 * `maxProperties` set to the largest list, string and map found at each place. Costing a rule
 * with it bounds what evaluating the rule on this value can cost, which is how the runtime
 * budgets (per call and per object) are enforced without instrumenting the evaluator.
 */
export function boundedSchema(value: unknown, schema: JSONSchemaProps | undefined): JSONSchemaProps {
  return bound([value], schema ?? {});
}

function bound(values: readonly unknown[], schema: JSONSchemaProps): JSONSchemaProps {
  const present = values.filter((v) => v !== null && v !== undefined);
  const out: JSONSchemaProps = { ...schema };
  const strings = present.filter((v): v is string => typeof v === "string");
  if (strings.length > 0) {
    out.type ??= "string";
    out.maxLength = Math.max(...strings.map((s) => s.length));
  }
  const lists = present.filter((v): v is unknown[] => Array.isArray(v));
  if (lists.length > 0) {
    out.type ??= "array";
    out.maxItems = Math.max(...lists.map((l) => l.length));
    out.items = bound(lists.flat(), schema.items ?? {});
  }
  const objects = present.filter((v): v is Record<string, unknown> => typeof v === "object" && !Array.isArray(v));
  if (objects.length > 0) {
    out.type ??= "object";
    if (schema.properties !== undefined) {
      out.properties = Object.fromEntries(
        Object.entries(schema.properties).map(([name, property]) => [
          name,
          bound(
            objects.map((o) => o[name]),
            property,
          ),
        ]),
      );
    } else {
      out.maxProperties = Math.max(...objects.map((o) => Object.keys(o).length));
      const valueSchema = typeof schema.additionalProperties === "object" ? schema.additionalProperties : {};
      out.additionalProperties = bound(
        objects.flatMap((o) => Object.values(o)),
        valueSchema,
      );
    }
  }
  return out;
}
