import type { SuiteTest } from "../framework/registry.js";
import { servicesTests } from "./services.js";

/** Every ported test, in the order a run takes them. */
export const SUITE: readonly SuiteTest[] = [...servicesTests];
