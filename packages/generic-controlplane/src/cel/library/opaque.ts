import { celMap, type CelInput, type CelMap } from "@bufbuild/cel";

/**
 * Kubernetes' CEL object types (Quantity, IP, CIDR, URL, optional) carried as CEL maps whose
 * identity is remembered here: the map holds a canonical form, so `==` compares values the way
 * the upstream types' `Equal` does, and the methods find the native value by identity.
 */
export class OpaqueType<T> {
  private readonly values = new WeakMap<object, T>();

  constructor(readonly typeName: string) {}

  wrap(value: T, canonical: CelInput): CelMap {
    const map = celMap(new Map([[`@${this.typeName}`, canonical]]));
    this.values.set(map, value);
    return map;
  }

  unwrap(value: unknown): T | undefined {
    return typeof value === "object" && value !== null ? this.values.get(value) : undefined;
  }

  /** The native value, or a CEL error naming the expected type. */
  expect(value: unknown): T {
    const native = this.unwrap(value);
    if (native === undefined) throw new Error(`no such overload: expected ${this.typeName}`);
    return native;
  }
}
