// What a VAST document holds, read-only, as the Rust side read it (`inspect_vast`):
// version, each ad InLine or Wrapper, its duration, media files, trackers and click-through.
// The preview's tree inspector (`preview/VastInspector.tsx`) shows the same facts with
// these helpers.
import type { MediaFile, VastSummary } from "../bindings";

/** A URL's scheme, marked: http is refused by publishers and never played. */
export function https(ok: boolean) {
  return ok ? <span className="ok">https</span> : <span className="finding-warning">http</span>;
}

/** A media file's frame size, as text. */
export const mediaSize = (m: MediaFile) => (m.width !== null && m.height !== null ? `${m.width}×${m.height}` : "?");
/** A media file's bitrate, as text. */
export const mediaBitrate = (m: MediaFile) => (m.bitrate !== null ? `${m.bitrate} kbit/s` : "?");

/** The document's version line: VAST and its version, or what the root is instead. */
export const versionText = (s: VastSummary) => (s.root === "VAST" ? `VAST ${s.version ?? "(no version)"}` : `not VAST (root ${s.root ?? "none"})`);

export function VastSummaryView({ summary, path }: { summary: VastSummary; path: string }) {
  return (
    <div className="vast-summary" data-vast-summary={path}>
      <div>
        <b>{path}</b>: {versionText(summary)}
        {summary.error && (
          <span className="finding-warning">
            {" "}
            · XML broken at line {summary.error.line}: {summary.error.message}
          </span>
        )}
      </div>
      {summary.ads.map((ad, i) => (
        <div key={i} className="vast-ad" data-ad-kind={ad.kind ?? "none"}>
          <div>
            Ad {ad.id ?? i + 1} (line {ad.line}): <b>{ad.kind ?? "neither InLine nor Wrapper"}</b>
            {ad.adSystem ? ` · ${ad.adSystem}` : ""}
            {ad.adTitle ? ` · ${ad.adTitle}` : ""}
          </div>
          {ad.wrapperUri && (
            <div>
              Next document: <code>{ad.wrapperUri}</code>
            </div>
          )}
          <div>Impressions: {ad.impressions.length === 0 ? "none" : ad.impressions.map((t, j) => <span key={j}>{j > 0 ? ", " : ""}<code>{t.url}</code> {https(t.https)}</span>)}</div>
          {ad.creatives.map((c, j) =>
            c.linear ? (
              <div key={j} className="vast-linear">
                <div>
                  Linear (line {c.linear.line}): duration {c.linear.duration ?? "none"}
                  {c.linear.skipOffset ? `, skippable after ${c.linear.skipOffset}` : ""}
                </div>
                {c.linear.mediaFiles.length > 0 && (
                  <table className="mini">
                    <caption>Media files</caption>
                    <thead>
                      <tr>
                        <th>Type</th>
                        <th>Size</th>
                        <th>Bitrate</th>
                        <th>Scheme</th>
                        <th>URL</th>
                      </tr>
                    </thead>
                    <tbody>
                      {c.linear.mediaFiles.map((m, k) => (
                        <tr key={k} data-media-file={k}>
                          <td>{m.mimeType ?? "?"}</td>
                          <td>{mediaSize(m)}</td>
                          <td>{mediaBitrate(m)}</td>
                          <td>{https(m.https)}</td>
                          <td className="mono">{m.url}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
                <div>
                  Trackers: {c.linear.tracking.length === 0 ? "none" : c.linear.tracking.map((t) => t.event ?? "?").join(", ")}
                </div>
                <div>
                  Click-through: {c.linear.clickThrough ? <><code>{c.linear.clickThrough.url}</code> {https(c.linear.clickThrough.https)}</> : "none"}
                </div>
              </div>
            ) : (
              <div key={j}>
                Creative {c.id ?? j + 1}: no Linear ({c.companions} companion(s), {c.nonLinears} non-linear)
              </div>
            ),
          )}
        </div>
      ))}
    </div>
  );
}
