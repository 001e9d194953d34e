/** `<package>.<message>.<field>` names, as the control plane's protobuf registration takes them, from fields listed per message. */
export function qualified(protoPackage: string, fieldsByMessage: Readonly<Record<string, readonly string[]>>): string[] {
  return Object.entries(fieldsByMessage).flatMap(([message, fields]) => fields.map((field) => `${protoPackage}.${message}.${field}`));
}
