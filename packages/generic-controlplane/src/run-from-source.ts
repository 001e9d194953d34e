/**
 * Lets a script of this package run from source on Node's type stripping (a child-process fixture
 * of a test, a bench): the sources import each other by their built `.js` names, and this resolve
 * hook maps such a relative import to the `.ts` file beside it. A script imports this module first,
 * by its `.ts` name (`await import(new URL("../run-from-source.ts", import.meta.url).href)`), then
 * imports what it runs dynamically: its static imports would be resolved before the hook exists.
 */
import { existsSync } from "node:fs";
import { registerHooks } from "node:module";
import { fileURLToPath } from "node:url";

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier.startsWith(".") && specifier.endsWith(".js") && context.parentURL !== undefined) {
      const source = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
      if (existsSync(fileURLToPath(source))) return nextResolve(source.href, context);
    }
    return nextResolve(specifier, context);
  },
});
