// A field named in a preview or an error: its label as the grid and forms show it, with
// the wire path in the tooltip (and in `data-wire-path`) for whoever needs the exact name.
import type { Kind } from "../api/types";
import { labelOfPath, useEditFields } from "./fields";

export function FieldName({ kind, path }: { kind: Kind | null; path: string }) {
  const fields = useEditFields(kind);
  return (
    <span className="error-field" title={path} data-wire-path={path}>
      {labelOfPath(fields, path)}
    </span>
  );
}
