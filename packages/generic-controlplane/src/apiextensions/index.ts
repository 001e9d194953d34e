/**
 * apiextensions.k8s.io: CustomResourceDefinitions and the custom resources they define, served by
 * the generic control plane (upstream's apiextensions-apiserver).
 */
export { customResourceDefinitionsResource, defaultCrd } from "./crd-resource.js";
export { createCrdStorage } from "./crd-store.js";
export { CrdController, type CrdControllerOptions } from "./controller.js";
export { converterFor, noneConverter, type ConverterFactory, type CustomResourceConverter } from "./conversion.js";
export { customResourceDefinitionsFor, type CustomResourceOptions } from "./custom-resource.js";
export type { CompiledCustomResourceSchema, CustomResourceSchemas } from "./schema-seam.js";
export { scaleStage } from "./scale-stage.js";
export * from "./types.js";
export { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate, type CrdValidationOptions, type SchemaErrors } from "./validation.js";
