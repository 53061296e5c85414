import { useCallback, useEffect, useId, useMemo, useRef, useState } from "react";
import { fetchCampaigns } from "../api/queries";
import type { AnyRow, CampaignRow } from "../api/types";
import { DataTable, type GridCells } from "../components/DataTable";
import { EntitySelect } from "../components/EntitySelect";
import { type ParentHint, useEditor, useNavActions, useNavigation } from "../state/navigation";
import { useReference } from "../state/reference";
import { refKey } from "../util/refs";
import { getPath } from "../util/path";
import { useBulkActions } from "../bulk/BulkActions";
import { useMenuCommand } from "../state/menu";
import { NO_SELECTION, type Selection } from "../table/useSelection";
import { type EntityConfig, useSortable } from "./entities";
import { CheckAllCreatives, FindingsFilter, type FindingsWord } from "../checks/CreativeTableChecks";

const rowId = (r: AnyRow) => refKey(r.target);
const rowRef = (r: AnyRow) => r.target;
const rowLabel = (r: AnyRow) => r.label;
const rowMarker = (r: AnyRow) => r.marker;
const rowPending = (r: AnyRow) => r.pending;

/** A key typed into a text box is the box's (its own paste, its own undo). */
function inText(t: EventTarget | null): boolean {
  return t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement || (t instanceof HTMLInputElement && t.type !== "checkbox" && t.type !== "radio");
}

/** The campaign picker that narrows the ad orders (to the tree's advertiser's campaigns). */
function CampaignFilter({ advertiser, value, onChange }: { advertiser: ParentHint | null; value: ParentHint | null; onChange: (p: ParentHint | null) => void }) {
  const id = useId();
  return (
    <span className="inline">
      <label htmlFor={id}>Campaign</label>{" "}
      <EntitySelect<CampaignRow>
        fetch={fetchCampaigns}
        kind="campaign"
        id={id}
        name="filter.campaign"
        label="campaigns"
        parent={advertiser?.target ?? null}
        value={value?.target ?? null}
        valueLabel={value?.label}
        emptyLabel="All campaigns"
        optionLabel={(c) => `${c.label}${c.parentLabel && !advertiser ? ` — ${c.parentLabel}` : ""}`}
        onChange={(ref, r) => onChange(ref ? { target: ref, label: r?.label ?? "", timezone: r?.timezone ?? null, advertiser: r?.parent ?? null } : null)}
      />
    </span>
  );
}

/**
 * One entity table screen, driven by its kind's config: the windowed table over the
 * kind's query command, narrowed to the tree's selection, with a New button and (for ad
 * orders) a campaign picker and the flight-caps pane.
 */
export function EntityScreen<R extends AnyRow>({ config }: { config: EntityConfig<R> }) {
  const { scope, setScope } = useNavigation();
  const { openEditor } = useNavActions();
  const { zoneOf } = useReference();
  const scoped = config.scopeParent(scope);

  // A campaign picked in the head (ad orders), starting from the tree's.
  const scopedKey = scoped ? refKey(scoped.target) : "";
  const [picked, setPicked] = useState<ParentHint | null>(scoped);
  const [seen, setSeen] = useState(scopedKey);
  if (seen !== scopedKey) {
    setSeen(scopedKey);
    setPicked(scoped);
  }
  const parent = config.campaignFilter ? picked : scoped;
  const treeAdvertiser: ParentHint | null =
    scope?.target.kind === "advertiser"
      ? { target: scope.target, label: scope.label, timezone: scope.timezone, advertiser: null }
      : scope?.advertiser
        ? { target: scope.advertiser, label: scope.advertiserLabel ?? "", timezone: scope.timezone, advertiser: null }
        : null;

  const { kind, columns: makeColumns, open: editorOf } = config;
  const sortable = useSortable(kind);
  const columns = useMemo(
    () => makeColumns(zoneOf).map((c) => ({ ...c, sortable: sortable.has(c.id) })),
    [sortable, makeColumns, zoneOf],
  );
  const open = useCallback((row: R) => openEditor(editorOf(row)), [editorOf, openEditor]);
  // Cells are edited in place, by the core's facts of the kind's columns.
  const cells = useMemo<GridCells<R>>(
    () => ({ kind, rowRef, raw: (r, path) => ("value" in r ? getPath(r.value, path) : undefined), zone: (r) => zoneOf(r.timezone).iana, rowReadOnly: (r) => r.readOnly }),
    [kind, zoneOf],
  );
  const [active, setActive] = useState<R | null>(null);
  // While the side panel shows a row of this table, it shows the cursor's row: moving the
  // cursor opens the row moved to, so the panel, the cursor and the selection agree.
  const { editor } = useEditor();
  const shownKey = editor && editor.kind === kind && "row" in editor && editor.row ? refKey(editor.row.target) : null;
  const shown = useRef(shownKey);
  useEffect(() => {
    shown.current = shownKey;
  });
  const onActiveChange = useCallback(
    (row: R) => {
      setActive(row);
      if (shown.current !== null && shown.current !== refKey(row.target)) openEditor(editorOf(row));
    },
    [editorOf, openEditor],
  );
  const [selection, setSelection] = useState<{ sel: Selection; count: number }>({ sel: NO_SELECTION, count: 0 });
  const onSelectionChange = useCallback((sel: Selection, count: number) => setSelection({ sel, count }), []);
  const bulk = useBulkActions({
    kind,
    kindLabel: config.title.toLowerCase(),
    selection: selection.sel,
    count: selection.count,
    parent: parent?.target ?? null,
  });
  useMenuCommand("import", () => void bulk.importKind());
  const [findingsWord, setFindingsWord] = useState<FindingsWord>("");

  return (
    <section
      className={config.pane ? "screen split" : "screen"}
      aria-label={config.title}
      onKeyDown={(e) => {
        if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === "v" && !inText(e.target)) {
          e.preventDefault();
          void bulk.paste();
        }
      }}
    >
      <div className="screen-head">
        <h1>{config.title}</h1>
        {config.campaignFilter && <CampaignFilter advertiser={treeAdvertiser} value={picked} onChange={setPicked} />}
        {config.campaignFilter && !picked && treeAdvertiser && <span className="muted">All campaigns of {treeAdvertiser.label}; pick one to narrow the list.</span>}
        {!config.campaignFilter && scoped && scope && (
          <span className="chip">
            Filtered to {scope.label}
            <button type="button" className="icon-button" aria-label="Clear the tree filter" onClick={() => setScope(null)}>
              ×
            </button>
          </span>
        )}
      </div>
      <DataTable<R>
        kind={config.kind}
        label={config.title}
        fetch={config.fetch}
        savedRow={config.savedRow}
        parent={(config.campaignFilter ? (picked ?? treeAdvertiser) : scoped)?.target ?? null}
        changes={config.changes}
        columns={columns}
        rowId={rowId}
        rowRef={rowRef}
        rowLabel={rowLabel}
        rowMarker={rowMarker}
        rowPending={rowPending}
        onOpen={open}
        cells={cells}
        onPasteRows={bulk.paste}
        onActiveChange={onActiveChange}
        onSelectionChange={onSelectionChange}
        filterWords={config.checks ? findingsWord : undefined}
        toolbar={
          <>
            <button type="button" className="primary" data-action="new" onClick={() => openEditor(config.create(parent))}>
              + {config.newLabel}
            </button>
            {bulk.buttons}
            {config.checks && (
              <>
                <CheckAllCreatives selection={selection.sel} count={selection.count} />
                <FindingsFilter value={findingsWord} onChange={setFindingsWord} />
              </>
            )}
          </>
        }
        emptyText={config.emptyText}
      />
      {config.pane?.(active)}
      {bulk.dialog}
    </section>
  );
}
