import type { KubeObject } from "../api/types.js";
import type { CustomResourceDefinition } from "./types.js";

/**
 * Converts custom resources between the versions of their CRD (upstream's `crConverter`). Reads
 * convert from the stored version to the requested one, writes from the requested version to the
 * storage version. The control plane picks one per CRD by `spec.conversion.strategy`.
 */
export interface CustomResourceConverter {
  /** `object` (any version of the CRD) as `apiVersion` (`<group>/<version>`); the input is the caller's to change. */
  convert(object: KubeObject, apiVersion: string): KubeObject;
}

/**
 * Builds the converter of a CRD whose strategy is not `None` (e.g. `Webhook`), or undefined when
 * that strategy is not supported here, in which case objects are served with `None` semantics.
 */
export type ConverterFactory = (crd: CustomResourceDefinition) => CustomResourceConverter | undefined;

/** Strategy `None`: only `apiVersion` changes, every other field is kept as it is. */
export const noneConverter: CustomResourceConverter = {
  convert(object, apiVersion) {
    object.apiVersion = apiVersion;
    return object;
  },
};

/** The converter for a CRD: `None`, or the one `factory` builds for its strategy. */
export function converterFor(crd: CustomResourceDefinition, factory: ConverterFactory | undefined): CustomResourceConverter {
  const strategy = crd.spec?.conversion?.strategy ?? "None";
  if (strategy === "None" || factory === undefined) return noneConverter;
  return factory(crd) ?? noneConverter;
}
