// A VAST creative's inspector: the document the Rust side read (`inspect_vast`, carried
// by the preview) as a tree, Ad → InLine/Wrapper → Creative → Linear → media files and
// trackers. A click on an https media file chooses what the live frame plays; http files
// are marked and cannot be chosen (the frame's policy allows https only). Trackers are
// text: nothing here requests them, and the page holds no media element of its own.
import type { Tracker, VastSummary } from "../bindings";
import { https, mediaBitrate, mediaSize, versionText } from "../checks/VastSummaryView";

/** A list of trackers, as text. */
function Trackers({ label, node, list }: { label: string; node: string; list: Tracker[] }) {
  return (
    <li data-vast-node={node}>
      <details open={list.length > 0}>
        <summary>
          {label} ({list.length})
        </summary>
        <ul>
          {list.map((t, i) => (
            <li key={i} data-vast-node="tracker">
              {t.event && <b>{t.event} </b>}
              <code>{t.url}</code> {https(t.https)}
            </li>
          ))}
        </ul>
      </details>
    </li>
  );
}

export function VastInspector({ path, summary, hint, chosen, onChoose }: { path: string; summary: VastSummary | null; hint: string | null; chosen: string | null; onChoose: (url: string) => void }) {
  if (!summary) {
    return (
      <div className="vast-tree" data-vast-tree={path} data-vast-empty>
        <b>{path}</b>
        <p className="muted" data-vast-hint>
          {hint}
        </p>
      </div>
    );
  }
  return (
    <div className="vast-tree" data-vast-tree={path}>
      <div>
        <b>{path}</b>: {versionText(summary)}
        {summary.error && (
          <span className="finding-warning">
            {" "}
            · XML broken at line {summary.error.line}: {summary.error.message}
          </span>
        )}
      </div>
      <ul>
        {summary.ads.map((ad, i) => (
          <li key={i} data-vast-node="ad">
            <details open>
              <summary>
                Ad {ad.id ?? i + 1} (line {ad.line})
              </summary>
              <ul>
                <li data-vast-node={ad.kind === "Wrapper" ? "wrapper" : ad.kind === "InLine" ? "inline" : "unknown"}>
                  <details open>
                    <summary>
                      <b>{ad.kind ?? "neither InLine nor Wrapper"}</b>
                      {ad.adSystem ? ` · ${ad.adSystem}` : ""}
                      {ad.adTitle ? ` · ${ad.adTitle}` : ""}
                    </summary>
                    <ul>
                      {ad.wrapperUri && (
                        <li data-vast-node="wrapper-uri">
                          Next document: <code>{ad.wrapperUri}</code>
                        </li>
                      )}
                      <Trackers label="Impressions" node="impressions" list={ad.impressions} />
                      <Trackers label="Error URLs" node="errors" list={ad.errors} />
                      {ad.creatives.map((c, j) => (
                        <li key={j} data-vast-node="creative">
                          <details open>
                            <summary>
                              Creative {c.id ?? j + 1} (line {c.line})
                            </summary>
                            {c.linear ? (
                              <ul>
                                <li data-vast-node="linear">
                                  <details open>
                                    <summary>
                                      Linear: duration {c.linear.duration ?? "none"}
                                      {c.linear.skipOffset ? `, skippable after ${c.linear.skipOffset}` : ""}
                                    </summary>
                                    <ul>
                                      <li data-vast-node="media-files">
                                        <details open>
                                          <summary>Media files ({c.linear.mediaFiles.length})</summary>
                                          <ul>
                                            {c.linear.mediaFiles.map((m, k) => (
                                              <li key={k} data-vast-node="media-file" data-https={m.https} data-chosen={m.https && chosen === m.url}>
                                                {m.mimeType ?? "?"} · {mediaSize(m)} · {mediaBitrate(m)} · {m.delivery ?? "?"} · {https(m.https)} <code>{m.url}</code>{" "}
                                                {m.https ? (
                                                  <button type="button" data-action="choose-media" aria-pressed={chosen === m.url} onClick={() => onChoose(m.url)}>
                                                    {chosen === m.url ? "Chosen" : "Choose"}
                                                  </button>
                                                ) : (
                                                  <span className="finding-warning">not played: http</span>
                                                )}
                                              </li>
                                            ))}
                                          </ul>
                                        </details>
                                      </li>
                                      <Trackers label="Tracking events" node="tracking" list={c.linear.tracking} />
                                      <li data-vast-node="click-through">
                                        Click-through: {c.linear.clickThrough ? <><code>{c.linear.clickThrough.url}</code> {https(c.linear.clickThrough.https)}</> : "none"}
                                      </li>
                                      <Trackers label="Click tracking" node="click-tracking" list={c.linear.clickTracking} />
                                    </ul>
                                  </details>
                                </li>
                              </ul>
                            ) : (
                              <p>
                                No Linear ({c.companions} companion(s), {c.nonLinears} non-linear)
                              </p>
                            )}
                          </details>
                        </li>
                      ))}
                    </ul>
                  </details>
                </li>
              </ul>
            </details>
          </li>
        ))}
      </ul>
    </div>
  );
}
