import type { JSONSchemaProps } from "../schema/types.js";
import { findDuplicateFields, scanJsonFields } from "./duplicate-fields.js";
import { findUnknownFields, unknownFieldMessage, type UnknownFieldOptions } from "./unknown-fields.js";

/**
 * Everything `fieldValidation` reports for one request body, in the order kube-apiserver lists it
 * after `strict decoding error: `. JSON bodies are decoded in one pass, so unknown and duplicate
 * fields interleave in document order (`unknown field "spec.x", duplicate field "spec.y"`); YAML
 * bodies report go-yaml's duplicate keys first, then the unknown fields.
 */
export function findStrictFieldErrors(
  text: string,
  contentType: string,
  object: unknown,
  schema: JSONSchemaProps | undefined,
  options: UnknownFieldOptions = {},
): string[] {
  const unknown = schema === undefined ? [] : findUnknownFields(object, schema, options);
  if (/yaml/i.test(contentType)) return [...findDuplicateFields(text, contentType), ...unknown.map(unknownFieldMessage)];
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
