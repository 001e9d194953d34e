import type { KubeObject } from "../../api/types.js";
import type { JSONSchemaProps } from "../../schema/types.js";
import type { FieldError } from "../../validation/field-errors.js";

/** A printer column of the Table (`kubectl get`) form of a resource. */
export interface PrinterColumn<T extends KubeObject = KubeObject> {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "date";
  /** `name` marks the column kubectl treats as the object's name. */
  format?: string;
  description?: string;
  /** 0 is always shown; > 0 only with `-o wide`. */
  priority?: number;
  /** The cell value; `date` columns return an RFC 3339 timestamp and are shown as an age. */
  cell: (object: T) => unknown;
}

/**
 * The hooks that give a resource type its behaviour, after k8s.io/apiserver's `RESTCreateStrategy`
 * and `RESTUpdateStrategy`. Each hook receives a deep copy it may mutate.
 */
export interface ResourceStrategy<T extends KubeObject = KubeObject> {
  /** Defaulting and normalisation before validation on create (e.g. secret type defaults to Opaque, stringData folds into data). */
  prepareForCreate?(object: T): void;
  /** Same on update; `old` is the stored object. */
  prepareForUpdate?(object: T, old: T): void;
  /** Type-specific validation on create. Object-meta rules are checked by the registry. */
  validate?(object: T): FieldError[];
  /** Type-specific validation on update, e.g. immutability. */
  validateUpdate?(object: T, old: T): FieldError[];
  /** Runs after every successful read from storage, e.g. to default fields added later. */
  decorate?(object: T): void;
  /**
   * Whether an update leaves the object ready to go (upstream `shouldDeleteDuringUpdate`). The
   * default: `deletionTimestamp` is set, no `metadata.finalizers` remain and no grace period runs
   * (`deletionGracePeriodSeconds` unset or 0). Namespaces also wait for `spec.finalizers`.
   */
  shouldDeleteDuringUpdate?(object: T): boolean;
  /**
   * Graceful deletion (upstream `RESTGracefulDeleteStrategy.CheckGracefulDelete`): the grace
   * period in seconds a DELETE of `object` gets, given the request's `gracePeriodSeconds`;
   * undefined deletes at once, as for types without the hook. A period above 0 keeps the object
   * with `deletionTimestamp` (now + period) and `deletionGracePeriodSeconds` until a DELETE with a
   * shorter period (0 from the agent that finished the cleanup, e.g. a kubelet) removes it.
   */
  gracefulDeletePeriod?(object: T, requestedSeconds: number | undefined): number | undefined;
  /**
   * Whether a PUT of an object that does not exist creates it (upstream `AllowCreateOnUpdate`):
   * true for leases, events, limit ranges and the RBAC types, as upstream; off by default.
   */
  allowCreateOnUpdate?: boolean;
}

/**
 * Everything the server needs to serve one resource type: its identity in discovery, its schema,
 * its storage behaviour and its table form. Built-in resources and consumer-registered resources
 * use the same definition.
 */
export interface ResourceDefinition<T extends KubeObject = KubeObject> {
  /** API group; `""` is the core group served under `/api`. */
  group: string;
  version: string;
  kind: string;
  /** Defaults to `${kind}List`. */
  listKind?: string;
  /** Lower-case plural, the URL segment: `configmaps`. */
  plural: string;
  /** Lower-case singular: `configmap`. */
  singular: string;
  scope: "Namespaced" | "Cluster";
  shortNames?: string[];
  categories?: string[];
  /**
   * OpenAPI v3 schema of the whole object. `metadata` may be left as `{ type: "object" }`: the
   * server substitutes the ObjectMeta schema. Its `x-kubernetes-patch-*` extensions enable
   * strategic merge patch; a resource without a schema answers strategic merge with 415.
   */
  schema?: JSONSchemaProps;
  /**
   * The form of `schema` the OpenAPI documents publish, when it differs: `schema` with nested
   * types as `$ref`s into `components` (`io.k8s.api.core.v1.PodSpec` …), as kube-apiserver
   * publishes its built-in types, so `kubectl explain` names them and each is published once.
   * The documents carry the components the published schema reaches. `schema` stays what the
   * server decodes, validates and merges with, and must describe the same fields.
   */
  openapi?: { schema: JSONSchemaProps; components: Readonly<Record<string, JSONSchemaProps>> };
  /**
   * Objects are decoded as unstructured JSON, as custom resources are: field types are not checked
   * by a typed decoder (400) but left to the strategy's schema validation (422), and strategic
   * merge patch is answered with 415 even though there is a schema.
   */
  unstructured?: boolean;
  /** Rule for `metadata.name`: DNS-1123 subdomain (default), DNS-1123 label, or any path segment. */
  nameRule?: "DNS1123Subdomain" | "DNS1123Label" | "PathSegment";
  /** A `/status` subresource: the main resource ignores status changes and `/status` ignores spec changes (metadata stays writable, like upstream). */
  statusSubresource?: boolean;
  /** Bump `metadata.generation` when anything but metadata and status changes (CRD-style resources). */
  tracksGeneration?: boolean;
  /**
   * The only verbs the resource serves, when not the standard set: `["create"]` for the review
   * types, which are evaluated and answered, never stored (no `storageVersionHash`). Others get 405.
   */
  restVerbs?: string[];
  /** Extra verbs beyond the standard set (e.g. a `finalize` subresource is declared by the resource's own handler). */
  verbs?: string[];
  /**
   * Subresources served outside the generic handlers (e.g. by a `HandlerStage` of the package that
   * defines the resource), listed in discovery; `kind` when the subresource speaks another kind (a `scale` answers autoscaling/v1 Scale,
   * which `kubectl scale` looks up in discovery).
   */
  subresources?: Array<{ name: string; verbs: string[]; kind?: { group: string; version: string; kind: string } }>;
  /** Columns after NAME (NAME and AGE are the default when none are given). */
  printerColumns?: PrinterColumn<T>[];
  /** Field selector labels beyond `metadata.name` and `metadata.namespace`, e.g. `type` for secrets. */
  fieldSelectors?: Record<string, (object: T) => string | undefined>;
  strategy?: ResourceStrategy<T>;
  /**
   * Serve objects kept under another resource's storage keys, in that resource's form (upstream
   * stores events.k8s.io/v1 Events as core/v1 Events under `/registry/events`, so both APIs see
   * the same objects). Keys come from `group`/`plural` here instead of the definition's own;
   * objects are converted with `toStorage` before every write and `fromStorage` after every read
   * and watch event. Strategy hooks, selectors and printer columns see this API's form.
   */
  storedAs?: StoredAs;
  /**
   * How objects of this resource in another of its versions become this version when that takes
   * more than rewriting `apiVersion` (a CRD's conversion webhook): admission with matchPolicy
   * Equivalent hands objects between versions through it. Storage does not use it (such a
   * resource's store is given storage that converts).
   */
  versionConverter?: VersionConverter;
}

/** Converts objects between the versions of one resource. */
export interface VersionConverter {
  /**
   * `objects` (each in any version of the resource) as `apiVersion` (`<group>/<version>`), in the
   * same order. One call per batch: a page of a list, the events a watch delivers together, the
   * one object of a get or a write. Objects already in `apiVersion` are never passed. The inputs
   * are the caller's to change. A failure rejects with the error the request answers with.
   */
  convert(objects: KubeObject[], apiVersion: string): Promise<KubeObject[]>;
}

export interface StoredAs {
  group: string;
  plural: string;
  /** This API's form → the stored form (including the stored `apiVersion`/`kind`). */
  toStorage(object: KubeObject): KubeObject;
  /** The stored form → this API's form. */
  fromStorage(object: KubeObject): KubeObject;
}
