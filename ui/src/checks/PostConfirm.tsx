// Posting with warnings: the Pending screen checks first (`check_changes`), and when a
// pending creative has warnings it asks before posting. Warnings never block: "Post
// anyway" posts; errors stay the model's and hold their changes back as before.
import type { CheckSummary } from "../bindings";
import { plural } from "../util/format";

export function PostConfirm({ summary, onPost, onCancel }: { summary: CheckSummary; onPost: () => void; onCancel: () => void }) {
  return (
    <div className="form-confirm post-confirm" role="alertdialog" aria-label="Post with warnings" data-confirm="post-warnings">
      <span>
        <strong>Pending creatives have {plural(summary.warnings, "warning")}.</strong>{" "}
        They may be rejected by review or serve blank. Post anyway?
      </span>
      <button type="button" className="primary" data-action="post-anyway" onClick={onPost}>
        Post anyway
      </button>
      <button type="button" data-action="cancel-post" autoFocus onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
