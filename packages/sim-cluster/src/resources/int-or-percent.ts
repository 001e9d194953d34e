import { fieldInvalid, type FieldError } from "@kubekit/generic-controlplane/registry";

/** An int-or-percent value resolved against `total`, rounding up or down as upstream's GetScaledValueFromIntOrPercent. */
export function scaledValue(value: number | string | undefined, total: number, roundUp: boolean): number {
  if (value === undefined) return 0;
  if (typeof value === "number") return value;
  const percent = Number(value.slice(0, -1));
  const exact = (percent * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** apps validation's ValidatePositiveIntOrPercent and IsNotMoreThan100Percent. */
export function validateIntOrPercent(value: number | string | undefined, field: string): FieldError[] {
  if (value === undefined) return [];
  if (typeof value === "number") return value < 0 ? [fieldInvalid(field, value, "must be greater than or equal to 0")] : [];
  if (!/^[0-9]+%$/.test(value))
    return [
      fieldInvalid(
        field,
        value,
        "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      ),
    ];
  if (Number(value.slice(0, -1)) > 100) return [fieldInvalid(field, value, "must not be greater than 100%")];
  return [];
}
