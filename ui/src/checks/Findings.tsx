// Findings as every view lists them: the checks' warnings and infos (the Rust side's
// `flightdeck_core::checks`), each with its rule, field and line. They never block a save
// or a post; the level decides only the styling.
import type { Finding, Level } from "../bindings";
import { plural } from "../util/format";

const LEVEL_TEXT: Record<Level, string> = { error: "Error", warning: "Warning", info: "Info" };

/** "2 warnings · 1 info", or "" when there are none. */
export function findingsText(findings: readonly Finding[]): string {
  const warnings = findings.filter((f) => f.level === "warning").length;
  const infos = findings.filter((f) => f.level === "info").length;
  return [warnings ? plural(warnings, "warning") : "", infos ? plural(infos, "info") : ""].filter(Boolean).join(" · ");
}

/** Whether any finding asks for a confirmation before posting. */
export const hasWarnings = (findings: readonly Finding[]) => findings.some((f) => f.level === "warning");

/** A list of findings: level, field and line, rule, message. */
export function FindingList({ findings, label }: { findings: readonly Finding[]; label?: string }) {
  if (findings.length === 0) return null;
  return (
    <ul className="findings" aria-label={label ?? "Findings"}>
      {findings.map((f, i) => (
        <li key={i} className={`finding finding-${f.level}`} data-rule={f.rule} data-level={f.level} data-path={f.path}>
          <b>{LEVEL_TEXT[f.level]}</b> <code>{f.line !== null ? `${f.path}:${f.line}` : f.path}</code> {f.message} <span className="muted finding-rule">{f.rule}</span>
        </li>
      ))}
    </ul>
  );
}
