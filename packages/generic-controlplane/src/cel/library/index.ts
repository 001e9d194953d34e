import { CelScalar, celError, celFunc, type CelFunc } from "@bufbuild/cel";
import { formatLibrary } from "./format.js";
import { ipLibrary, ipText } from "./ip.js";
import { listsLibrary } from "./lists.js";
import { optionalLibrary } from "./optional.js";
import { quantityLibrary } from "./quantity.js";
import { regexLibrary } from "./regex.js";
import { stringsLibrary } from "./strings.js";
import { urlLibrary, urlText } from "./url.js";

/** `string(x)` for the library types; the standard overloads handle every other type first. */
const stringOfLibraryType = celFunc("string", [CelScalar.DYN], CelScalar.STRING, (value) => {
  const text = ipText(value) ?? urlText(value);
  if (text === undefined) throw celError("no such overload");
  return text;
});

/** Kubernetes' CEL libraries (k8s.io/apiserver `pkg/cel/library`). */
export const kubernetesLibraries: readonly CelFunc[] = [
  ...stringsLibrary,
  ...optionalLibrary,
  ...listsLibrary,
  ...regexLibrary,
  ...quantityLibrary,
  ...ipLibrary,
  ...urlLibrary,
  ...formatLibrary,
  stringOfLibraryType,
];
