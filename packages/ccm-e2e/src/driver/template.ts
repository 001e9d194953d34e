import { CcmE2eError } from "../errors.js";

const PLACEHOLDER = /\{\{\s*\.([A-Za-z][A-Za-z0-9]*)\s*\}\}/g;

/**
 * Checks every `{{.name}}` in a command against the variables its hook provides, so a typo is an
 * error when the driver is loaded rather than an empty argument when the hook first runs.
 */
export function checkTemplate(argv: readonly string[], allowed: readonly string[], path: string): void {
  argv.forEach((arg, index) => {
    const stripped = arg.replace(PLACEHOLDER, (_match, name: string) => {
      if (!allowed.includes(name)) {
        throw new CcmE2eError(
          "invalid-driver",
          `${path}[${index}]: unknown template variable ".${name}" (this hook has ${allowed.map((v) => `.${v}`).join(", ")})`,
        );
      }
      return "";
    });
    if (stripped.includes("{{") || stripped.includes("}}")) {
      throw new CcmE2eError("invalid-driver", `${path}[${index}]: malformed template ${JSON.stringify(arg)}: write {{.name}}`);
    }
  });
}

/** Fills the placeholders of a checked command; each argument stays one argument (no shell). */
export function renderTemplate(argv: readonly string[], values: Readonly<Record<string, string>>): string[] {
  return argv.map((arg) => arg.replace(PLACEHOLDER, (_match, name: string) => values[name] ?? ""));
}
