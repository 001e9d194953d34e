import type { KubeObject } from "../api/types.js";
import type { VersionConverter } from "../registry/rest/resource-definition.js";
import type { CustomResourceDefinition } from "./types.js";

/**
 * Converts custom resources between the versions of their CRD (upstream's `crConverter`). Reads
 * convert from the stored version to the requested one, writes from the requested version to the
 * storage version. The control plane picks one per CRD by `spec.conversion.strategy`.
 */
export type CustomResourceConverter = VersionConverter;

/**
 * Builds the converter of a CRD whose strategy is not `None`, or undefined when `factory` does not
 * handle that strategy (then the built-in `Webhook` converter, or `None` semantics, applies).
 */
export type ConverterFactory = (crd: CustomResourceDefinition) => CustomResourceConverter | undefined;

/** Strategy `None`: only `apiVersion` changes, every other field is kept as it is. */
export const noneConverter: CustomResourceConverter = {
  convert(objects, apiVersion) {
    for (const object of objects) object.apiVersion = apiVersion;
    return Promise.resolve(objects);
  },
};

/** Strategy `None` for one object, synchronously: what the registry's `storedAs` hooks run for such CRDs. */
export function convertNone(object: KubeObject, apiVersion: string): KubeObject {
  object.apiVersion = apiVersion;
  return object;
}

/**
 * The converter for a CRD, or undefined for `None` semantics (served without a conversion step
 * beyond rewriting `apiVersion`, as fast as a CRD with one version). `factory` (the embedder's)
 * is asked first, then `builtIn` (the `Webhook` converter).
 */
export function converterFor(
  crd: CustomResourceDefinition,
  factory: ConverterFactory | undefined,
  builtIn?: ConverterFactory,
): CustomResourceConverter | undefined {
  const strategy = crd.spec?.conversion?.strategy ?? "None";
  if (strategy === "None") return undefined;
  const converter = factory?.(crd) ?? builtIn?.(crd);
  return converter === noneConverter ? undefined : converter;
}
