import { defineConfig } from "vitest/config";

// One `npx vitest` at the root runs every package's project.
export default defineConfig({ test: { projects: ["packages/*", "examples/*"] } });
