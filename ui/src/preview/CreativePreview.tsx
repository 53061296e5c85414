// A creative's preview, safe to show inside the app: offline by default (the tag in a
// script-less `sandbox=""` frame whose document loads nothing, and the list of what it
// would load), and "Render live" on demand (the core's live document on its own origin,
// in a `sandbox="allow-scripts"` frame without allow-same-origin, popups or top
// navigation). What to show, at which size and what a tag loads all come from the
// core (`previewCreative`); this only lays it out. A VAST creative shows the core's
// tree (`VastInspector`) and plays a chosen https media file only live, in the same frame
// (`renderMedia`: a document of the media element alone); its trackers are text.
import { useEffect, useRef, useState } from "react";
import { commands } from "../bindings";
import { plain, unwrap } from "../api/call";
import type { Creative, Ok } from "../api/types";
import type { VastSummary } from "../bindings";
import { VastInspector } from "./VastInspector";

type Preview = Ok<typeof commands.previewCreative>;
type Size = Preview["frame"];

/** The attribute the live frame gets, exactly: scripts, and nothing else. */
export const LIVE_SANDBOX = "allow-scripts";
/** The widest a preview is drawn; larger creatives (DOOH screens) are scaled down. */
const MAX_WIDTH = 480;
/** Messages a live frame posted, kept for display (text only). */
const MAX_REPORT = 20;

function isMeasure(d: unknown): d is { flightdeckPreview: "image"; width: number; height: number } {
  if (typeof d !== "object" || d === null) return false;
  const m = d as Record<string, unknown>;
  return m.flightdeckPreview === "image" && typeof m.width === "number" && typeof m.height === "number";
}

/** A message as text, whatever the frame sent. */
function asText(d: unknown): string {
  if (typeof d === "string") return d;
  try {
    return JSON.stringify(d) ?? String(d);
  } catch {
    return String(d);
  }
}

const sizeText = (s: Size) => `${s.width} × ${s.height}`;

/** The media file played when none is chosen: the first https one (as the core plays). */
function firstPlayable(s: VastSummary | null): string | null {
  for (const ad of s?.ads ?? []) for (const c of ad.creatives) for (const m of c.linear?.mediaFiles ?? []) if (m.https) return m.url;
  return null;
}

/** Records the first paint of a frame: after its load, on the next animation frame. */
function usePaint() {
  const [openedAt] = useState(() => performance.now());
  const [paintedAt, setPaintedAt] = useState<number | null>(null);
  const onPainted = () => requestAnimationFrame(() => setPaintedAt((p) => p ?? performance.now()));
  return { openedAt, paintedAt, onPainted };
}

export function CreativePreview({ creative }: { creative: Creative }) {
  const [preview, setPreview] = useState<Preview | null>(null);
  const [live, setLive] = useState<string | null>(null);
  const [report, setReport] = useState<string[]>([]);
  const [measured, setMeasured] = useState<Size | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const frameRef = useRef<HTMLIFrameElement>(null);
  const paint = usePaint();

  // An edited creative: the live run (and what it reported) was of the old one.
  const [seen, setSeen] = useState(creative);
  if (seen !== creative) {
    setSeen(creative);
    setLive(null);
    setReport([]);
    setMeasured(null);
    setChosen(null);
  }

  useEffect(() => {
    let current = true;
    void plain(commands.previewCreative(creative)).then((p) => {
      if (current && p) setPreview(p);
    });
    return () => {
      current = false;
    };
  }, [creative]);

  // The one channel a live frame has: postMessage. Only its own frame's are taken, and
  // shown as text.
  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      const frame = frameRef.current;
      if (!frame || e.source !== frame.contentWindow) return;
      const data: unknown = e.data;
      if (isMeasure(data)) setMeasured({ width: data.width, height: data.height });
      else setReport((r) => [...r, asText(data).slice(0, 2000)].slice(-MAX_REPORT));
    };
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, []);

  const vast = preview?.content.kind === "vast" ? preview.content : null;
  const playing = vast ? (chosen ?? firstPlayable(vast.summary)) : null;

  const renderLive = async (media: string | null = playing) => {
    const url = await unwrap(media ? commands.renderMedia(creative, media) : commands.renderLive(creative));
    if (url) {
      setReport([]);
      setMeasured(null);
      setLive(url);
    }
  };

  if (!preview) return <p className="muted" data-preview="loading">Preparing the preview…</p>;
  const { frame, declared, content, resources } = preview;
  const scale = Math.min(1, MAX_WIDTH / frame.width);
  const box = { width: frame.width, height: frame.height };
  const stage = { width: Math.round(frame.width * scale), height: Math.round(frame.height * scale) };
  const inner = { ...box, transform: scale < 1 ? `scale(${scale})` : undefined, transformOrigin: "0 0" };

  let body;
  if (live) {
    body = <iframe ref={frameRef} key={live} data-preview-frame data-mode="live" title="Creative preview (live)" sandbox={LIVE_SANDBOX} src={live} style={inner} width={box.width} height={box.height} onLoad={paint.onPainted} />;
  } else if (content.kind === "html") {
    body = <iframe ref={frameRef} data-preview-frame data-mode="offline" title="Creative preview (offline)" sandbox="" srcDoc={content.document} style={inner} width={box.width} height={box.height} onLoad={paint.onPainted} />;
  } else if (content.kind === "image" && content.inline) {
    body = (
      <img
        data-preview-image
        src={content.url}
        alt="The creative's image"
        style={inner}
        onLoad={(e) => {
          setMeasured({ width: e.currentTarget.naturalWidth, height: e.currentTarget.naturalHeight });
          paint.onPainted();
        }}
      />
    );
  } else if (content.kind === "native") {
    body = (
      <div className="preview-native" data-preview-native style={inner}>
        <div className="preview-placeholder">{content.image ? "Image: shown when rendered live" : "No image"}</div>
        <strong>{content.headline}</strong>
        <p>{content.caption}</p>
        {content.sponsoredBy && <small>Sponsored by {content.sponsoredBy}</small>}
      </div>
    );
  } else if (content.kind === "vast") {
    body = (
      <div className="preview-placeholder" style={inner} data-vast-player="offline">
        {content.summary ? (playing ? "Render live to play the chosen media file." : "No https media file to play.") : content.hint}
      </div>
    );
  } else {
    const text = content.kind === "empty" ? content.reason : content.kind === "image" ? "A remote image: it loads only when rendered live." : `${content.urls.length} ${content.element} file(s): played only when rendered live.`;
    body = (
      <div className="preview-placeholder" style={inner}>
        {text}
      </div>
    );
  }

  const mismatch = measured && declared && (measured.width !== declared.width || measured.height !== declared.height);
  return (
    <div className="creative-preview" data-preview={live ? "live" : "offline"} data-opened-at={paint.openedAt} data-painted-at={paint.paintedAt ?? undefined}>
      <div className="preview-head">
        <span>
          {declared ? `Declared ${sizeText(declared)}` : `No size declared; shown at ${sizeText(frame)}`}
          {measured && (
            <span data-real-size data-size-match={mismatch ? "false" : "true"}>
              {" · "}real {sizeText(measured)}
              {mismatch ? " (differs from the declared size)" : ""}
            </span>
          )}
        </span>
        {live ? (
          <button type="button" data-action="render-offline" onClick={() => setLive(null)}>
            Back to offline
          </button>
        ) : (
          <button type="button" data-action="render-live" disabled={!preview.live} onClick={() => void renderLive(playing)} title="Runs the creative: its scripts run and what it loads is fetched">
            Render live
          </button>
        )}
      </div>
      <div className="preview-stage" style={stage}>
        {body}
      </div>
      {vast && (
        <VastInspector
          path={vast.path}
          summary={vast.summary}
          hint={vast.hint}
          chosen={playing}
          onChoose={(url) => {
            setChosen(url);
            if (live) void renderLive(url);
          }}
        />
      )}
      {live && (
        <pre className="preview-report" data-preview-report aria-label="Messages from the creative">
          {report.join("\n")}
        </pre>
      )}
      <table className="preview-resources" data-preview-resources>
        <caption>{resources.length === 0 ? "Loads nothing external" : `Loads ${resources.length} resource(s) when live`}</caption>
        <tbody>
          {resources.map((r, i) => (
            <tr key={i} data-transport={r.transport}>
              <td>{r.transport}</td>
              <td>
                &lt;{r.element} {r.attribute}&gt;
              </td>
              <td className="mono">{r.url}</td>
              <td>{r.line > 0 ? `line ${r.line}` : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A collapsed "Preview" section: the preview opens (and its timing starts) on a click. */
export function PreviewSection({ creative, title = "Preview" }: { creative: Creative; title?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <section className="form-section preview-section" aria-label="Preview">
      <div className="section-head">
        <h3>{title}</h3>
        <button type="button" data-action="preview" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
          {open ? "Hide preview" : "Preview"}
        </button>
      </div>
      {open && <CreativePreview creative={creative} />}
    </section>
  );
}

/** The creatives table's pane: the preview of the row with the cursor. */
export function CreativePreviewPane({ row }: { row: { label: string; value: Creative } | null }) {
  if (!row) return <p className="muted pane-hint">Select a creative to preview it.</p>;
  return (
    <div className="preview-pane" data-preview-pane>
      <PreviewSection creative={row.value} title={`Preview: ${row.label}`} />
    </div>
  );
}
