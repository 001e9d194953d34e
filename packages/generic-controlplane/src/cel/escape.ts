/**
 * Property names as CEL sees them (apiserver `cel.Escape`): CEL identifiers cannot hold `-`, `.`
 * or `/`, and reserved words cannot be field names, so `foo-bar` is `self.foo__dash__bar` and
 * `namespace` is `self.__namespace__`. Names with other characters cannot be reached from CEL.
 */

const RESERVED = new Set([
  "true",
  "false",
  "null",
  "in",
  "as",
  "break",
  "const",
  "continue",
  "else",
  "for",
  "function",
  "if",
  "import",
  "let",
  "loop",
  "package",
  "namespace",
  "return",
  "var",
  "void",
  "while",
]);

const ESCAPABLE = /^[a-zA-Z_./-][a-zA-Z0-9_./-]*$/;

/** The CEL field name of a property, or `undefined` when the name cannot be expressed in CEL. */
export function escapePropertyName(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  if (!ESCAPABLE.test(name)) return undefined;
  return name.replace(/__|[./-]/g, (m) => (m === "__" ? "__underscores__" : m === "." ? "__dot__" : m === "-" ? "__dash__" : "__slash__"));
}
