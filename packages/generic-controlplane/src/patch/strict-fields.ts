import type { JSONSchemaProps } from "../schema/types.js";
import { findDuplicateFields, isYamlContentType, mayHaveDuplicateJsonKeys, scanJsonFields } from "./duplicate-fields.js";
import { findUnknownCustomResourceFields, findUnknownFields, unknownFieldMessage, type UnknownFieldOptions } from "./unknown-fields.js";

export interface StrictFieldOptions extends UnknownFieldOptions {
  /**
   * The body is a custom resource: apiextensions-apiserver decodes it as unstructured JSON (which
   * reports duplicates) and then prunes it, so every duplicate comes before every unknown field.
   */
  customResource?: boolean;
}

/**
 * Everything `fieldValidation` reports for one request body, in the order kube-apiserver lists it
 * after `strict decoding error: `. JSON bodies are decoded in one pass, so unknown and duplicate
 * fields interleave in document order (`unknown field "spec.x", duplicate field "spec.y"`); YAML
 * bodies report go-yaml's duplicate keys first, then the unknown fields. Custom resources list
 * duplicates first, then unknown fields in apiextensions' order (findUnknownCustomResourceFields).
 */
export function findStrictFieldErrors(
  text: string,
  contentType: string,
  object: unknown,
  schema: JSONSchemaProps | undefined,
  options: StrictFieldOptions = {},
): string[] {
  if (options.customResource === true) {
    const unknown = schema === undefined ? [] : findUnknownCustomResourceFields(object, schema, options);
    const duplicates =
      isYamlContentType(contentType) || mayHaveDuplicateJsonKeys(text, object) ? findDuplicateFields(text, contentType) : [];
    return [...duplicates, ...unknown.map(unknownFieldMessage)];
  }
  const unknown = schema === undefined ? [] : findUnknownFields(object, schema, options);
  if (isYamlContentType(contentType)) return [...findDuplicateFields(text, contentType), ...unknown.map(unknownFieldMessage)];
  // The common case, a clean body, is settled without scanning the text key by key.
  if (unknown.length === 0 && !mayHaveDuplicateJsonKeys(text, object)) return [];
  const fields = scanJsonFields(text);
  if (fields === undefined) return unknown.map(unknownFieldMessage);
  const pending = new Set(unknown);
  const messages: string[] = [];
  for (const field of fields) {
    if (pending.delete(field.path)) messages.push(unknownFieldMessage(field.path));
    if (field.duplicate) messages.push(`duplicate field "${field.path}"`);
  }
  // Paths the text does not spell out the same way still get reported.
  for (const path of pending) messages.push(unknownFieldMessage(path));
  return messages;
}
