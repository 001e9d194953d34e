import { stringify as stringifyYaml } from "yaml";
import { stringifyExactJson } from "../../../api/exact-json.js";

/**
 * YAML answers. The yaml package recurses once per level and runs out of stack a few hundred
 * levels down, while objects nest 10,000 deep; such a value is written as its JSON text, which is
 * YAML too (flow style), so every YAML client reads it.
 */
export function yamlText(value: unknown): string {
  try {
    return stringifyYaml(value);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return `${stringifyExactJson(value)}\n`;
  }
}

/** One item of the list under `field` (`- …` with its continuation lines), as yamlText spells it. */
export function yamlListItem(field: string, value: unknown): string {
  const key = `${field}:\n`;
  try {
    return stringifyYaml({ [field]: [value] }).slice(key.length);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return `- ${stringifyExactJson(value)}\n`;
  }
}
