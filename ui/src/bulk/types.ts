// Types of the bulk commands, derived from the generated signatures (see api/types.ts).
import type { commands } from "../bindings";
import type { Arg, Ok } from "../api/types";

type Cmds = typeof commands;
export type Preview = Ok<Cmds["bulkEdit"]>;
export type RowPreview = Preview["rows"][number];
export type RowOutcome = RowPreview["outcome"];
export type FieldEdit = Arg<Cmds["bulkEdit"], 1>[number];
export type EditChange = FieldEdit["change"];
export type BulkScope = Arg<Cmds["findReplace"], 0>;
export type Find = Arg<Cmds["findReplace"], 1>;
export type ImportOptions = Arg<Cmds["importSheet"], 1>;
export type DuplicateOptions = Arg<Cmds["duplicateMany"], 1>;
export type Undone = NonNullable<Ok<Cmds["undo"]>>;
export type HistoryStep = Ok<Cmds["editHistory"]>[number];
export type MoneySummary = Ok<Cmds["moneySummary"]>;
export type MoneyRow = MoneySummary["total"];
export type Budgets = MoneyRow["before"];
