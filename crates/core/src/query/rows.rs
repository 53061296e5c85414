//! Rows as views show them: an entity's wire value with its label, marker, parent and
//! timezone, read straight from the workspace.

use super::*;

/// The label of a row from its JSON: its name, or its kind and key. Only `name` is
/// parsed; the rest is skipped over.
pub(super) fn label_in(json: &str, target: &EntityRef) -> String {
    #[derive(Deserialize)]
    struct Named<'a> {
        #[serde(borrow)]
        name: Option<std::borrow::Cow<'a, str>>,
    }
    let named = serde_json::from_str::<Named<'_>>(json).ok();
    label(named.as_ref().and_then(|n| n.name.as_deref()), target)
}

/// The label of one entity of the workspace, as tables and pending changes show it.
pub fn label_of(ws: &Workspace, target: &EntityRef) -> Result<String> {
    let mut out = None;
    ws.scan_one(target, |s| {
        out = Some(label_in(s.json, target));
        Ok(())
    })?;
    Ok(out.unwrap_or_else(|| label(None, target)))
}

pub(super) fn labels_of(ws: &Workspace, kind: Kind) -> Result<HashMap<EntityRef, String>> {
    let mut out = HashMap::new();
    ws.scan(kind, |s| {
        let l = label_in(s.json, &s.target);
        out.insert(s.target, l);
        Ok(())
    })?;
    Ok(out)
}

/// One entity's row, or `None` when the workspace does not hold it.
pub fn row<T: DeserializeOwned>(ws: &Workspace, target: &EntityRef) -> Result<Option<Row<T>>> {
    let markers = ws.markers_of(std::slice::from_ref(target))?;
    row_with(ws, target, &markers, &mut ParentCache::default())
}

/// The label and timezone of each parent a window's rows share (a window of ad orders
/// often has one campaign), read once per window.
#[derive(Default)]
pub(super) struct ParentCache(HashMap<EntityRef, (String, Option<TimezoneName>)>);

impl ParentCache {
    fn get(
        &mut self,
        ws: &Workspace,
        parent: &EntityRef,
    ) -> Result<(String, Option<TimezoneName>)> {
        if let Some(hit) = self.0.get(parent) {
            return Ok(hit.clone());
        }
        let facts = (label_of(ws, parent)?, ws.timezone_of(parent)?);
        self.0.insert(parent.clone(), facts.clone());
        Ok(facts)
    }
}

pub(super) fn row_with<T: DeserializeOwned>(
    ws: &Workspace,
    target: &EntityRef,
    markers: &HashMap<EntityRef, Marker>,
    parents: &mut ParentCache,
) -> Result<Option<Row<T>>> {
    // The working JSON decodes straight into the wire type: a window is read on every
    // keystroke, and the base and server copies `Workspace::get` also parses are not shown.
    let mut found = None;
    ws.scan_one(target, |s| {
        let value: T = serde_json::from_str(s.json).map_err(|err| {
            flightdeck_offline::Error::Corrupt(format!(
                "{} {} does not fit its resource: {err}",
                target.kind.label(),
                target.key
            ))
        })?;
        found = Some((label_in(s.json, target), s.parent, value));
        Ok(())
    })?;
    let Some((label, parent, value)) = found else {
        return Ok(None);
    };
    let (parent_label, timezone) = match &parent {
        // A row's dates are in its advertiser's timezone, which its parent's is.
        Some(p) => {
            let (l, tz) = parents.get(ws, p)?;
            (Some(l), tz)
        }
        None => (None, ws.timezone_of(target)?),
    };
    let marker = markers.get(target).copied();
    let status = match target.kind {
        Kind::AdOrder => Some(StatusCell::of(ws.ad_order_status(target)?)),
        _ => None,
    };
    Ok(Some(Row {
        status,
        label,
        marker,
        read_only: read_only_reason(target).map(str::to_owned),
        parent_label,
        timezone,
        target: target.clone(),
        parent,
        value,
        // A marker is there exactly when a change to the entity is not applied yet.
        pending: marker.is_some(),
    }))
}
