// The creative form's "Checks" section: every warning and info of the value being edited,
// with its field and line, and what each VAST document holds. Read-only; nothing here
// blocks the save.
import type { CreativeChecks } from "../bindings";
import { FindingList, findingsText } from "./Findings";
import { VastSummaryView } from "./VastSummaryView";

export function ChecksSection({ checks }: { checks: CreativeChecks | null }) {
  const summary = checks ? findingsText(checks.findings) : "";
  return (
    <section className="form-section creative-checks" aria-label="Checks" data-section="checks">
      <div className="section-head">
        <h3>Checks</h3>
        <span className="muted">{checks === null ? "Checking…" : summary || "Nothing found."} Warnings never block saving or posting.</span>
      </div>
      {checks && <FindingList findings={checks.findings} label="Checks" />}
      {checks?.vast.map((d) => (
        <VastSummaryView key={d.path} path={d.path} summary={d.summary} />
      ))}
    </section>
  );
}
