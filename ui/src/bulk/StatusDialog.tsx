import { commands } from "../bindings";
import type { StatusChoice } from "../bindings";
import { plural } from "../util/format";
import { PreviewDialog } from "./PreviewDialog";
import type { BulkScope } from "./types";

/** The status actions of the ad-order table, in the order they show. */
export const STATUS_ACTIONS: { status: StatusChoice; label: string }[] = [
  { status: "active", label: "Launch" },
  { status: "paused", label: "Pause" },
  { status: "archived", label: "Archive" },
  { status: "inactive", label: "Make inactive" },
];

/**
 * Launch, pause, archive or make inactive the selected ad orders: the Rust side's
 * preview first (which rows change, which it refuses and why), then one undo step of
 * pending status changes, posted through `updateStatus`.
 */
export function StatusDialog({ status, scope, count, onClose }: { status: StatusChoice; scope: BulkScope; count: number; onClose: () => void }) {
  const label = STATUS_ACTIONS.find((a) => a.status === status)?.label ?? status;
  return (
    <PreviewDialog
      title={`${label} ${plural(count, "ad order")}`}
      run={(apply) => commands.setStatus(scope, status, apply)}
      onClose={onClose}
      inputKey={status}
      autoPreview
    >
      <p className="muted" data-form="set-status">
        Each becomes a pending change, posted after any save of the same ad order.
      </p>
    </PreviewDialog>
  );
}
